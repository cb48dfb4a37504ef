// The start-up tables of the cell benchmark: the guest runtimes compared, blank pool hand-outs, the microVM's
// warm restore, and the goals with this run's figures.
import type { HandOutFigures } from "./blank-handout.js";
import { printGoals } from "./goals.js";
import type { RestoreFigures } from "./microvm-restore.js";
import type { RuntimeFigures } from "./runtime-compare.js";

export interface StartupReport {
  nodeMs: number;
  coldStartMs(backend: string): number | undefined;
  runtimes: RuntimeFigures[];
  handOuts: HandOutFigures[] | undefined;
  restore: RestoreFigures | undefined;
}

export function printStartupReport(r: StartupReport): void {
  const f = (n: number, d = 1) => n.toFixed(d);
  if (r.runtimes.length > 0) {
    console.log("\nbwrap cold start by guest runtime (median; new user each run)");
    console.log(`${"runtime".padEnd(20)} | echo: first reply      | agent: Ready`);
    for (const rt of r.runtimes) {
      const cell = (ms: number) => `${f(ms).padStart(8)} ms (${f(ms / r.nodeMs, 2)}× node -e)`;
      console.log(`${rt.runtime.padEnd(20)} | ${cell(rt.echoFirstReplyMs)} | ${cell(rt.agentReadyMs)}`);
    }
  }
  if (r.handOuts) {
    console.log("\nbwrap blank pool: hand-out to a user with no warm cell (median)");
    for (const h of r.handOuts)
      console.log(
        `${h.kind.padEnd(15)} | hand-out ${f(h.handOutMs, 2).padStart(8)} ms | first reply ${f(h.firstReplyMs).padStart(7)} ms`,
      );
  }
  const { restore } = r;
  if (restore) {
    console.log(
      `\nmicroVM save and warm restore (measured, not used to start cells: restored VMs share their random state)\n` +
        `boot to heartbeat ${f(restore.bootToHeartbeatMs)} ms; save ${f(restore.saveMs)} ms (${f(restore.stateMiB)} MiB); ` +
        `restore to first reply ${f(restore.restoreToFirstReplyMs)} ms (median of ${restore.runs})`,
    );
  }
  printGoals(
    [
      {
        what: "bwrap cold start to first reply",
        underMs: 120,
        maxTimesNode: 2,
        figureMs: r.coldStartMs("bwrap"),
      },
      { what: "microVM cold start to first reply", underMs: 3000, figureMs: r.coldStartMs("microvm") },
      {
        what: "microVM warm restore to first reply (experiment)",
        underMs: 1000,
        figureMs: restore?.restoreToFirstReplyMs,
      },
      {
        what: "bwrap blank hand-out to a returning user",
        underMs: 20,
        figureMs: r.handOuts?.find((h) => h.kind === "returning user")?.handOutMs,
      },
      {
        what: "bwrap blank hand-out to a new user",
        underMs: 20,
        figureMs: r.handOuts?.find((h) => h.kind === "new user")?.handOutMs,
      },
    ],
    r.nodeMs,
  );
}
