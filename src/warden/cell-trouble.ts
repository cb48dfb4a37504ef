import { CellCrashLoopError, type CellExit, type CellHandle } from "../cells/index.js";

/**
 * What the user is told when their cell keeps crashing and the warden has stopped starting it: what happened,
 * when it is tried again, and what an admin can do now. Undefined for any other start failure.
 */
export function crashLoopMessage(error: unknown): string | undefined {
  if (!(error instanceof CellCrashLoopError)) return undefined;
  const { failure, userId } = error;
  const at = new Date(failure.retryAt).toISOString().slice(11, 16);
  return (
    `Your agent is stopped: its cell crashed ${failure.crashes} time${failure.crashes === 1 ? "" : "s"} in a ` +
    `row, the last time because ${plainExit(failure.exit)}. It will be started again with your first message ` +
    `after ${at} UTC. An admin can restart it now from the admin screen (Cells, Restart) or with ` +
    `POST /api/admin/cells/${userId}/restart; the admin screen shows what the cell said last.`
  );
}

/**
 * Why a turn's cell stopped answering, when the cell itself ended (it crashed mid-answer): how, and that it is
 * starting again. Undefined when the cell did not end (the channel alone was lost) or was stopped on purpose.
 */
export async function stoppedAnsweringMessage(cell: CellHandle): Promise<string | undefined> {
  const exit = await Promise.race([
    cell.exited,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3_000).unref()),
  ]);
  if (!exit || exit.requested) return undefined;
  return (
    `your agent's cell stopped while answering: ${plainExit(exit)}. It is starting again; send your message ` +
    "again in a moment. If it keeps happening, an admin sees why on the admin screen (Cells)."
  );
}

/** How a cell ended, for its user: no host paths, no node internals (the admin screen has those). */
function plainExit(exit: CellExit): string {
  if (/heap out of memory|Reached heap limit|Allocation failed/.test(exit.stderr ?? ""))
    return "it ran out of memory";
  if (exit.signal === "SIGKILL") return "the host ended it (it passed its memory limit, or was killed)";
  return exit.signal
    ? `it was stopped by signal ${exit.signal}`
    : `it exited with code ${exit.code ?? "unknown"}`;
}
