// The start-up goals of the cells, each printed with its figure from this run, the ratio to the plain
// `node -e` spawn measured in the same run, and whether it is met; the load average says how busy the host was.
import { loadavg } from "node:os";

export interface Goal {
  what: string;
  /** Met when the figure is below this. */
  underMs: number;
  /** And, when set, when the figure is at most this many times the `node -e` baseline. */
  maxTimesNode?: number;
  /** Undefined when this run did not measure it (the backend is not available here). */
  figureMs: number | undefined;
}

export function formatLoad(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

export function printGoals(goals: Goal[], nodeMs: number): void {
  console.log(`\ngoals (load average now ${formatLoad()}; node -e baseline ${nodeMs.toFixed(1)} ms)`);
  console.log(`${"goal".padEnd(56)} | figure      | × node -e | met`);
  for (const g of goals) {
    const limit = `< ${g.underMs} ms${g.maxTimesNode ? `, ≤ ${g.maxTimesNode}× node -e` : ""}`;
    const name = `${g.what} (${limit})`.padEnd(56);
    if (g.figureMs === undefined) {
      console.log(`${name} | not measured here`);
      continue;
    }
    const times = g.figureMs / nodeMs;
    const met = g.figureMs < g.underMs && (g.maxTimesNode === undefined || times <= g.maxTimesNode);
    console.log(
      `${name} | ${g.figureMs.toFixed(1).padStart(8)} ms | ${times.toFixed(2).padStart(8)}× | ${met ? "yes" : "no"}`,
    );
  }
}
