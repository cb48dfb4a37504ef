import type { ProjectedFeedbackRecord } from "../../contracts/index.js";
import type { StoredEnvelope } from "./stored-records.js";
import { projectionRecordId } from "./stored-records.js";

/** One raw envelope beside what it became (seed 004 "each raw envelope beside the projected feedback record"). */
export interface InspectEntry {
  envelope_id: string;
  event_id: string;
  event_kind: string;
  session_id: string;
  received: StoredEnvelope["received"];
  raw: Record<string, unknown>;
  envelope: StoredEnvelope["envelope"];
  projection_status: "projected" | "raw evidence only" | "not yet projected";
  projection: ProjectedFeedbackRecord | null;
}

export interface InspectReport {
  report_kind: "evolution_inspect";
  counts: { envelopes: number; projected: number; raw_evidence_only: number; not_yet_projected: number };
  entries: InspectEntry[];
}

/**
 * The raw-to-projected chain, in the order envelopes were received. It is built from the stored lines alone
 * (no clock, no paths), so the same state always gives the same report, byte for byte.
 */
export function buildInspectReport(
  envelopes: readonly StoredEnvelope[],
  projected: readonly ProjectedFeedbackRecord[],
): InspectReport {
  const byId = new Map(projected.map((record) => [record.record_id, record]));
  const entries = envelopes.map(({ envelope, raw, received }): InspectEntry => {
    const { event } = envelope;
    const feedback = event.event_kind === "session_feedback";
    const projection = feedback
      ? (byId.get(projectionRecordId(envelope.envelope_id, event.event_id)) ?? null)
      : null;
    return {
      envelope_id: envelope.envelope_id,
      event_id: event.event_id,
      event_kind: event.event_kind,
      session_id: event.session_id,
      received,
      raw,
      envelope,
      projection_status: !feedback ? "raw evidence only" : projection ? "projected" : "not yet projected",
      projection,
    };
  });
  const count = (status: InspectEntry["projection_status"]) =>
    entries.filter((entry) => entry.projection_status === status).length;
  return {
    report_kind: "evolution_inspect",
    counts: {
      envelopes: entries.length,
      projected: count("projected"),
      raw_evidence_only: count("raw evidence only"),
      not_yet_projected: count("not yet projected"),
    },
    entries,
  };
}
