import type { IntegrateData } from "../../contracts/index.js";
import type { GateCommandResult, GateOutcome } from "./gate-runner.js";

/** One line of the integrate answer's `gates`. */
export type Gate = IntegrateData["gates"][number];

/** A gate command's outcome as a line of the answer. */
export function gateOf(r: GateCommandResult): Gate {
  const passed = r.exit === 0 && !r.timed_out;
  return { name: r.command, passed, detail: r.timed_out ? "timed out" : `exit ${r.exit ?? "none (killed)"}` };
}

/** What INTEGRATION_FAILED says about the command that failed: which, how, and the tail of its output. */
export function failureDetails(r: GateCommandResult): { reason: string } & Record<string, unknown> {
  const how = r.timed_out ? "timed out" : `exited ${r.exit ?? "without a code (killed)"}`;
  const output_tail = [r.stdout_tail.slice(-1000), r.stderr_tail.slice(-1000)]
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join("\n");
  return {
    reason: `gate command ${r.command} ${how}`,
    stage: "gate",
    command: r.command,
    exit: r.exit,
    timed_out: r.timed_out,
    output_tail,
  };
}

/**
 * The paths of the merged tree the gate cell did not get (links are data, never followed; files over the copy's
 * caps), said in the answer so that a reader knows what the commands ran without. None: no line.
 */
export function treeGate(outcome: GateOutcome): Gate[] {
  if (outcome.skipped.length === 0) return [];
  const shown = outcome.skipped.slice(0, 5).map((s) => `${s.path} (${s.reason})`);
  const more = outcome.skipped.length > 5 ? `, and ${outcome.skipped.length - 5} more` : "";
  const detail = `not copied into the gate cell: ${shown.join(", ")}${more}`;
  return [{ name: "tree", passed: true, detail }];
}
