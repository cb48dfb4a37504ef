import { estimateTokens } from "../memory/index.js";
import type { ChatMessage, TokenUsage } from "../providers/index.js";

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens };
}

/**
 * The size of the context the next call will send: the last call's reported input and output (which is what
 * the model saw and wrote) plus memory's estimate for what was appended since, or an estimate of everything when
 * no call has reported yet. Memory's estimator is the only one, so the loop and the flush count alike.
 */
export class ContextMeter {
  private reported: number | undefined;
  private reportedAt = 0;

  record(usage: TokenUsage, messageCount: number): void {
    if (usage.input_tokens + usage.output_tokens === 0) return;
    this.reported = usage.input_tokens + usage.output_tokens;
    this.reportedAt = messageCount;
  }

  /** Forget the reported size after the conversation was rewritten (compaction). */
  reset(): void {
    this.reported = undefined;
    this.reportedAt = 0;
  }

  measure(all: readonly ChatMessage[]): number {
    if (this.reported === undefined) return estimateTokens(all);
    return this.reported + estimateTokens(all.slice(this.reportedAt));
  }
}
