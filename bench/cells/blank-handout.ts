// Hand-out of a blank pool cell to a user who has no warm cell of their own: the time CellManager.get takes
// (the brain attached, the user named), then to the first reply, for a new user (their brain made from the
// template) and a returning one (their brain exists). Each hand-out starts from a full pool.
import { join } from "node:path";
import { type CellBackend, CellManager, WarmPool } from "../../src/cells/index.js";
import { percentile } from "../percentile.js";

export interface HandOutFigures {
  kind: "new user" | "returning user";
  handOutMs: number;
  firstReplyMs: number;
  runs: number;
}

export async function measureBlankHandOut(
  backend: CellBackend,
  usersDir: string,
  runs = 5,
): Promise<HandOutFigures[] | undefined> {
  if (!backend.startBlank) return undefined;
  const spec = { handler: "echo" as const, startTimeoutMs: 180_000 };
  const figures: HandOutFigures[] = [];
  for (const kind of ["new user", "returning user"] as const) {
    const pool = new WarmPool({ backend, usersDir, size: 0, blank: 1, spec });
    const manager = new CellManager({ backend, usersDir, warmPool: pool, spec, idleStopMs: 0 });
    const handOut: number[] = [];
    const firstReply: number[] = [];
    for (let i = 0; i < runs; i++) {
      const user = `${kind === "new user" ? "fresh" : "back"}${i}`;
      if (kind === "returning user") {
        // The user's brain exists from an earlier cell, stopped since.
        const earlier = await backend.start({ ...spec, userId: user, userDir: join(usersDir, user) });
        await earlier.stop();
      }
      await pool.prewarmBlank();
      if (pool.blankCount === 0) throw new Error("the blank pool could not start a cell");
      const started = performance.now();
      const cell = await manager.get(user);
      handOut.push(performance.now() - started);
      const reply = await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 60_000 });
      if (reply.type !== "FileOpResult") throw new Error(`the handed-out cell answered ${reply.type}`);
      firstReply.push(performance.now() - started);
      await manager.stop(user);
    }
    await manager.stopAll();
    figures.push({
      kind,
      handOutMs: percentile(handOut, 50),
      firstReplyMs: percentile(firstReply, 50),
      runs,
    });
  }
  return figures;
}
