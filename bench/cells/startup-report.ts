// The start-up tables of the cell benchmark: the guest runtimes compared, blank pool hand-outs, the microVM's
// suspend and resume, and the goals with this run's figures.
import type { HandOutFigures } from "./blank-handout.js";
import { printGoals } from "./goals.js";
import type { ResumeFigures } from "./microvm-resume.js";
import type { RuntimeFigures } from "./runtime-compare.js";

export interface StartupReport {
  nodeMs: number;
  coldStartMs(backend: string): number | undefined;
  runtimes: RuntimeFigures[];
  handOuts: HandOutFigures[] | undefined;
  resumes: ResumeFigures[];
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
  if (r.resumes.length > 0) {
    console.log("\nmicroVM cell suspended to disk and resumed (new user; resume median of its runs)");
    console.log(
      `${"handler".padEnd(8)} | cold → 1st reply | suspend          | resume → 1st reply at once | after the host idled`,
    );
    for (const x of r.resumes)
      console.log(
        `${x.handler.padEnd(8)} | ${f(x.coldToFirstReplyMs).padStart(11)} ms | ${f(x.suspendMs).padStart(7)} ms ${f(x.stateMiB, 0).padStart(4)} MiB | ` +
          `${f(x.resumeToFirstReplyMs).padStart(8)} ms (${f(x.resumeToFirstReplyMs / x.coldToFirstReplyMs, 2)}× cold) | ` +
          `${f(x.idleResumeToFirstReplyMs).padStart(8)} ms after ${f(x.idleMs / 1000, 0)} s (${x.runs} runs each)`,
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
        what: "microVM warm restore (resume) to first reply, echo, after the host idled",
        underMs: 1000,
        figureMs: r.resumes.find((x) => x.handler === "echo")?.idleResumeToFirstReplyMs,
      },
      {
        what: "microVM warm restore (resume) to first reply, agent, after the host idled",
        underMs: 1000,
        figureMs: r.resumes.find((x) => x.handler === "agent")?.idleResumeToFirstReplyMs,
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
