import type { ChatRequest, TokenUsage } from "./chat-message.js";
import { zeroUsage } from "./chat-message.js";
import { MessageAccumulator } from "./message-accumulator.js";
import type { ProviderErrorCode, StreamEvent } from "./stream-event.js";

/**
 * The state of one streaming call: the message so far, the usage, and one abort controller fired by the
 * caller's signal, by the idle timer, or by the end of the call (so an abandoned stream closes its socket).
 */
export class ChatCall {
  readonly acc = new MessageAccumulator();
  usage: TokenUsage = zeroUsage();
  readonly controller = new AbortController();
  private timedOut = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => this.controller.abort(this.signal?.reason);

  constructor(
    readonly provider: string,
    readonly request: ChatRequest,
    private readonly idleMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The final `error` event, carrying the message as far as it got. */
  fail(
    code: ProviderErrorCode,
    message: string,
    extra: { status?: number; retryable?: boolean; detail?: string } = {},
  ): StreamEvent {
    return {
      type: "error",
      error: {
        code,
        message,
        retryable: extra.retryable ?? false,
        ...(extra.status === undefined ? {} : { status: extra.status }),
        ...(extra.detail === undefined ? {} : { detail: extra.detail }),
      },
      message: this.acc.snapshot(),
      usage: this.usage,
    };
  }

  /** Restarts the silence allowance; called before every wait for the server. */
  armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error("idle timeout"));
    }, this.idleMs);
  }

  /** Our own waits (retry backoff) are not the server's silence. */
  pauseIdle(): void {
    clearTimeout(this.idleTimer);
  }

  /** Why the call was stopped from outside (caller abort or idle timeout), if it was. */
  stopped(): StreamEvent | undefined {
    if (this.signal?.aborted) return this.fail("aborted", "the call was aborted");
    if (this.timedOut) {
      return this.fail("timeout", `${this.provider} sent nothing for ${this.idleMs} ms`, { retryable: true });
    }
    return undefined;
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    this.signal?.removeEventListener("abort", this.onAbort);
    this.controller.abort();
  }
}
