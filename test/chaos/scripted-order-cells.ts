import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CellBackend } from "../../src/cells/index.js";
import { runFileOp } from "../../src/inmate/brain-file-ops.js";
import { createGateHandler } from "../../src/inmate/gate-handler.js";
import type { CellHandler } from "../../src/inmate/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";

/**
 * Command's cells for a chaos run: the inmate's real cell server, protocol, tree transfer and gate handler, run
 * inside the worker's process (fake-cell.ts) instead of a sandboxed child. An order's agent is a scripted turn:
 * it writes the note its objective names and answers with a seed-001 completion block, as the scripted model's
 * agent would in two model calls. A real agent cell costs seconds to start on a busy two-core host (measured: ten
 * seconds an order in process cells, four in-process with the real agent), so fifty orders would take the whole
 * test's time; what the chaos test proves is in the ledger, the queue, git and the processes around the cell.
 */
export function scriptedOrderBackend(): CellBackend {
  const agents = createFakeCellBackend({ handler: (_peer, brainRoot) => scriptedAgent(brainRoot) });
  const gates = createFakeCellBackend({ handler: () => createGateHandler() });
  return {
    ...agents,
    start: (spec) => (spec.handler === "gate" ? gates : agents).start(spec),
  };
}

function scriptedAgent(brainRoot: string): CellHandler {
  return {
    name: "scripted order agent",
    async *onUserMessage(message) {
      const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(message.text)?.[1] ?? "unknown";
      const file = /Write (notes\/[a-z0-9]+\.md)/.exec(message.text)?.[1] ?? "notes/unknown.md";
      const path = join(brainRoot, "work", file);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `# ${file}\n`);
      const fields = {
        run_id: orderId,
        branch: `jarvis-order_${orderId}`,
        commit_sha: "abc1234",
        files_changed: [file],
        test_result: `test -s ${file} passed`,
        risk: "low - one new note",
        pr_skipped_reason: "the host integrates the worktree",
      };
      yield { kind: "final", text: `Wrote ${file}.\n<completion>\n${JSON.stringify(fields)}\n</completion>` };
    },
    onFileOp: (request) => runFileOp(brainRoot, request),
    async *onJobTrigger() {},
  };
}
