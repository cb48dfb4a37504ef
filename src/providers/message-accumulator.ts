import type { AssistantMessage, ToolCall } from "./chat-message.js";

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** A streamed tool-call fragment as OpenAI-compatible servers send it in `choices[0].delta.tool_calls`. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/**
 * Builds the assistant message from stream deltas. Tool calls arrive in pieces keyed by `index`: the first piece
 * carries id and name, later ones append to the arguments, and parallel calls interleave by index.
 */
export class MessageAccumulator {
  private content = "";
  private readonly calls = new Map<number, PartialCall>();
  private lastIndex = -1;

  appendText(delta: string): void {
    this.content += delta;
  }

  appendToolCall(delta: ToolCallDelta): void {
    // Some servers omit `index` for one call at a time: a new id starts a new call, no id continues the last.
    let index = delta.index;
    if (index === undefined) {
      const last = this.calls.get(this.lastIndex);
      index =
        last === undefined || (delta.id !== undefined && delta.id !== last.id)
          ? this.lastIndex + 1
          : this.lastIndex;
    }
    this.lastIndex = Math.max(this.lastIndex, index);
    const call = this.calls.get(index) ?? { id: "", name: "", arguments: "" };
    if (delta.id) call.id = delta.id;
    if (delta.name) call.name += delta.name;
    if (delta.arguments) call.arguments += delta.arguments;
    this.calls.set(index, call);
  }

  /** Complete calls in index order; a call the server left without an id gets a stable local one. */
  toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ id: c.id || `call_${index}`, name: c.name, arguments: c.arguments }));
  }

  snapshot(): AssistantMessage {
    return { role: "assistant", content: this.content, toolCalls: this.toolCalls() };
  }
}
