import { runFileOp } from "./brain-file-ops.js";
import type { CellHandler, JobProgress, TurnEvent } from "./cell-handler.js";

/**
 * DEV/TEST ONLY: answers every message by echoing it word by word. It exists so the protocol, the backends
 * and the lifecycle can be exercised without a model; a production cell runs the agent handler. It is what
 * the protocol, backend and pool tests start most and what the start-up benchmark times, so it imports nothing
 * but the brain's file operations: an echo cell's start evaluates no agent, memory or shell code.
 */
export function createEchoDevHandler(): CellHandler {
  return {
    name: "echo (dev/test only)",
    async *onUserMessage(message) {
      const words = message.text.split(/(?<=\s)/);
      for (const word of words) yield { kind: "delta", delta: word } satisfies TurnEvent;
      yield {
        kind: "final",
        text: message.text,
        usage: { input_tokens: words.length, output_tokens: words.length },
      };
    },
    onFileOp: (request, context) => runFileOp(context.brainRoot, request),
    onJobTrigger: succeedDevJob,
  };
}

/** The dev handlers' answer to a job trigger: it runs and succeeds at once. */
export async function* succeedDevJob(): AsyncIterable<JobProgress> {
  yield { status: "running" };
  yield { status: "succeeded" };
}
