import { z } from "zod";
import { anyId, aString, jsonObject, rfc3339 } from "../common.js";
import { defineContract } from "../registry.js";
import { projectedFeedbackRecordSchema } from "./evolution-records.js";
import { operatorSessionArtifactSchema } from "./operator-session.js";
import { runtimeEventEnvelopeSchema } from "./runtime-envelope.js";

export const HANDOFF_BUNDLE_REPORT_KIND = "openclaw_operator_handoff_bundle";
export const HANDOFF_BUNDLE_SCHEMA_VERSION = "1.0";

const text = aString().min(1, "must not be empty");

/**
 * An envelope as openclaw-import stored it: complete, so a replay keeps its ids instead of generating new ones
 * (seed 004 "preserves the stored adapted envelopes and projected feedback IDs").
 */
const storedEnvelopeSchema = runtimeEventEnvelopeSchema.extend({ envelope_id: anyId, recorded_at: rfc3339 });

/**
 * reports/openclaw_operator_handoff_bundle_<session>.json (seed 004: "export bundle that keeps the source
 * artifact, runtime session report, handoff payload, adapted envelopes, and projected feedback together for
 * local replay"). openclaw-import accepts it as well as an operator-session artifact.
 */
export const handoffBundleSchema = z.looseObject({
  report_kind: z.literal(HANDOFF_BUNDLE_REPORT_KIND, `must be ${HANDOFF_BUNDLE_REPORT_KIND}`),
  schema_version: z.literal(HANDOFF_BUNDLE_SCHEMA_VERSION, `must be ${HANDOFF_BUNDLE_SCHEMA_VERSION}`),
  exported_at: rfc3339,
  session_id: anyId,
  task: text,
  source: text,
  source_artifact: operatorSessionArtifactSchema,
  handoff: jsonObject,
  runtime_session_report: jsonObject,
  adapted_envelopes: z
    .array(storedEnvelopeSchema, "must be a list of event envelopes")
    .min(1, "must not be empty"),
  projected_feedback: z.array(projectedFeedbackRecordSchema, "must be a list of projected feedback records"),
  artifact_paths: z.record(z.string(), aString()).optional(),
  export_notes: z.array(aString(), "must be a list of strings").optional(),
});
export type HandoffBundle = z.output<typeof handoffBundleSchema>;

export const handoffBundleContract = defineContract({
  kind: "openclaw-operator-handoff-bundle",
  seed: "004",
  title: "OpenClaw operator handoff bundle",
  description:
    "What openclaw-import exports for replay: the source artifact, the runtime session report, the handoff, " +
    "the adapted envelopes and the projected feedback of one session.",
  format: "json",
  schema: handoffBundleSchema,
});
