import type { ProtocolPeer } from "../../src/channel/index.js";
import type { CellHandler, JobProgress, TurnEvent } from "../../src/inmate/index.js";
import { createProxyProviders } from "../../src/inmate/warden-proxies.js";

/**
 * Scripted inmates for the fake cell (fake-cell.ts): a handler that does only what a test writes, with the cell's
 * own end of the channel at hand, so a test can play the guest (send any frame the warden's proxies serve) while
 * the warden's side is the real one.
 */
export interface ScriptedCell {
  /** The guest's peer: what the inmate sends the warden goes out here. */
  peer: ProtocolPeer;
  /** Sends a JobStatus nobody asked for, as the cell's own scheduler reports a run. */
  notify: (status: JobProgress & { job_id: string }) => void;
  /** Set once the server has flushed the handler on its way out. */
  closed: boolean;
}

export type ScriptedParts = Partial<Omit<CellHandler, "attach" | "close">>;

/**
 * A handler factory for createFakeCellBackend: `parts(cell)` gives what the cell does; the rest answers as a
 * development handler would (an echo of the message, no files, no queries). `cells` collects every started cell.
 */
export function scriptedCells(parts: (cell: ScriptedCell) => ScriptedParts = () => ({})) {
  const cells: ScriptedCell[] = [];
  const handler = (peer: ProtocolPeer): CellHandler => {
    const cell: ScriptedCell = { peer, notify: () => {}, closed: false };
    cells.push(cell);
    const own = parts(cell);
    return {
      name: "scripted",
      async *onUserMessage(message) {
        yield { kind: "final", text: `echo: ${message.text}` } satisfies TurnEvent;
      },
      async onFileOp() {
        return { error: { code: "forbidden", message: "this cell keeps no files" } };
      },
      async *onJobTrigger() {},
      async onQuery() {
        return { error: { code: "unsupported", message: "this cell answers no queries" } };
      },
      ...own,
      attach(notify) {
        cell.notify = notify;
      },
      async close() {
        cell.closed = true;
      },
    };
  };
  return { handler, cells };
}

/**
 * The smallest agent: each message is one model call through the warden's model proxy, made by the inmate's own
 * proxy client (warden-proxies.ts), its deltas streamed and its failure passed back as the agent passes it.
 */
export function modelTurns(
  peer: ProtocolPeer,
  call: { provider?: string; model?: string; maxTokens?: number } = {},
): CellHandler["onUserMessage"] {
  const providers = createProxyProviders(peer);
  return async function* (message, context) {
    const stream = providers.get(call.provider ?? "local").stream(
      {
        model: call.model ?? "test-model",
        messages: [{ role: "user", content: message.text }],
        ...(call.maxTokens === undefined ? {} : { maxTokens: call.maxTokens }),
      },
      { signal: context.signal },
    );
    let text = "";
    for await (const event of stream) {
      if (event.type === "text_delta") {
        text += event.delta;
        yield { kind: "delta", delta: event.delta };
      } else if (event.type === "done") {
        yield { kind: "final", text, usage: event.usage, stopReason: "stop" };
        return;
      } else if (event.type === "error") {
        const aborted = event.error.code === "aborted";
        yield {
          kind: "final",
          text,
          usage: event.usage,
          stopReason: aborted ? "aborted" : "error",
          ...(aborted ? {} : { error: event.error.message, failure: event.error }),
        };
        return;
      }
    }
  };
}

/** Resolves once `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
