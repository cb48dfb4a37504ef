import type { CellHandle } from "../../src/cells/index.js";
import type { ShellOutcome } from "../../src/inmate/index.js";

/** Runs a shell command inside a cell through the shell test handler and returns what it printed. */
export async function shellIn(cell: CellHandle, command: string, timeoutMs = 120_000): Promise<ShellOutcome> {
  const reply = await cell.call({ type: "UserMessage", text: command }, { timeoutMs });
  if (reply.type !== "TurnComplete") throw new Error(`expected TurnComplete, got ${JSON.stringify(reply)}`);
  return JSON.parse(reply.text) as ShellOutcome;
}

/** True when the cell still answers a request: the check that the host keeps serving. */
export async function answers(cell: CellHandle, timeoutMs = 60_000): Promise<boolean> {
  try {
    const reply = await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs });
    return reply.type === "FileOpResult" && reply.error === undefined;
  } catch {
    return false;
  }
}

/**
 * What a starved cell could no longer do: fork a handful of processes, allocate 64 MiB, write 4 MiB to its
 * brain. A bystander that only answered a file listing would hide a neighbour that took its pids or memory.
 */
const HEALTH_PROBE = [
  "i=0; while [ $i -lt 16 ]; do (sleep 0.2 &) || break; i=$((i+1)); done; wait; echo forked=$i",
  `node -e 'const b=Buffer.alloc(64<<20,1);console.log("allocated="+(b.length>>20))'`,
  "dd if=/dev/zero of=bystander-probe bs=1M count=4 2>/dev/null; echo wrote=$(du -m bystander-probe | cut -f1); rm -f bystander-probe",
].join("; ");

export async function bystanderHealthy(cell: CellHandle): Promise<{ ok: boolean; detail: string }> {
  try {
    const out = await shellIn(cell, HEALTH_PROBE, 120_000);
    const ok = ["forked=16", "allocated=64", "wrote=4"].every((want) => out.stdout.includes(want));
    return { ok, detail: out.stdout.trim().replace(/\n/g, ", ") || out.stderr.trim() };
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
}
