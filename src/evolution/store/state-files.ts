import { join } from "node:path";
import { ironclawHome } from "../../core/index.js";

/** The files of an evolution state directory, named as seed 004's "Local Audit Surface" names them. */
export const STATE_FILES = {
  events: "events.jsonl",
  envelopes: "runtime_event_envelopes.jsonl",
  projected: "projected_feedback.jsonl",
  reports: "reports",
  inspectReport: "reports/latest_inspect_report.json",
  lock: ".writer.lock",
} as const;

/** The default state directory: IRONCLAW_HOME/evolution. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(ironclawHome(env), "evolution");
}
