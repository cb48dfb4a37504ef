import type { CellHandle, ShellOutcome } from "../../src/cells/index.js";

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
