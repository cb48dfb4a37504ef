import { join } from "node:path";
import { ironclawHome } from "../../core/index.js";

/**
 * The files of an evolution state directory, named as seed 004's "Local Audit Surface" names them. `received/`
 * is ours: the whole payload of each ingest, byte for byte as it arrived, named by its sha256, which every
 * envelope line it produced names (`received.payload_sha256`).
 */
export const STATE_FILES = {
  events: "events.jsonl",
  envelopes: "runtime_event_envelopes.jsonl",
  projected: "projected_feedback.jsonl",
  received: "received",
  reports: "reports",
  inspectReport: "reports/latest_inspect_report.json",
  lock: ".writer.lock",
} as const;

/** The default state directory: IRONCLAW_HOME/evolution. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(ironclawHome(env), "evolution");
}

/** Where the exact bytes of a received payload are kept. */
export function receivedPayloadPath(stateDir: string, sha256: string): string {
  return join(stateDir, STATE_FILES.received, `${sha256}.json`);
}
