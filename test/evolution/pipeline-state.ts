import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvolutionStore } from "../../src/evolution/index.js";
import { EVOLUTION_FIXTURES } from "./state-snapshot.js";

/** When the fixed feedback set was received: projected_at of its records, so every state built from it is the same. */
export const RECEIVED_AT = new Date("2026-03-13T19:00:00.000Z");

/**
 * A fresh state directory holding the pipeline's fixed feedback set: six projected feedback records (three
 * skills, two missing capabilities) and, in events.jsonl, a routed session with its direct feedback.
 */
export function seededState(prefix = "ironclaw-pipeline-"): { stateDir: string; store: EvolutionStore } {
  const stateDir = join(mkdtempSync(join(tmpdir(), prefix)), "evolution");
  const store = EvolutionStore.open(stateDir);
  store.ingest(readFileSync(join(EVOLUTION_FIXTURES, "pipeline_feedback.json")), { now: () => RECEIVED_AT });
  store.recordDirect({
    record_kind: "routed_session",
    session_id: "s5",
    task: "deploy the release candidate",
    selected_skill_ids: ["deploy_helper"],
    occurred_at: "2026-03-13T18:14:00+00:00",
  });
  store.recordDirect({
    record_kind: "direct_feedback",
    session_id: "s5",
    task: "deploy the release candidate",
    status: "failure",
    score: 0,
    comment: "thumbs down: it never ran the smoke test",
    occurred_at: "2026-03-13T18:15:30+00:00",
  });
  return { stateDir, store };
}
