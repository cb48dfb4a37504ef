import {
  type CompleteRuntimeEventEnvelope,
  type ProjectedFeedbackRecord,
  RUNTIME_EVENT_CONTRACT_NAME,
  RUNTIME_EVENT_CONTRACT_VERSION,
  type RuntimeEventPayloadForm,
} from "../../contracts/index.js";
import { derivedUuid } from "./derived-id.js";

/** How an envelope reached the store: which payload, where in it, when, by whom. */
export interface ReceivedFrom {
  /** The sha256 of the payload's bytes exactly as received. */
  payload_sha256: string;
  /**
   * The whole payload's text exactly as received, on the first line the payload stored (null on the others).
   * Payloads are refused unless they are UTF-8, so the text's UTF-8 encoding is the received bytes, byte for byte.
   */
  payload_text: string | null;
  payload_form: RuntimeEventPayloadForm;
  payload_index: number;
  received_at: string;
  /** The warden user who sent it; null when it came from the host (the CLI, an import). */
  submitted_by: string | null;
}

/** One line of runtime_event_envelopes.jsonl: the envelope as received, completed, and where it came from. */
export interface StoredEnvelope {
  envelope: CompleteRuntimeEventEnvelope;
  raw: Record<string, unknown>;
  received: ReceivedFrom;
}

/** The projected record's id: the same envelope and event always project to the same record. */
export function projectionRecordId(envelopeId: string, eventId: string): string {
  return derivedUuid("projected-feedback", envelopeId, eventId);
}

/**
 * Seed 004 projection: session_feedback becomes a ProjectedFeedbackRecord with its lineage; session_started is
 * raw evidence only (undefined). projected_at is the time the envelope was received, the ingest that projects it,
 * so a projection redone after a crash is byte-identical to the one that was cut off.
 */
export function projectFeedback(stored: StoredEnvelope): ProjectedFeedbackRecord | undefined {
  const { envelope } = stored;
  const event = envelope.event;
  if (event.event_kind !== "session_feedback") return undefined;
  return {
    record_id: projectionRecordId(envelope.envelope_id, event.event_id),
    session_id: event.session_id,
    task: event.task,
    status: event.status,
    score: event.score,
    comment: event.comment ?? null,
    selected_skill_ids: event.selected_skill_ids ?? [],
    missing_capabilities: event.missing_capabilities ?? [],
    steps: event.steps ?? [],
    metadata: event.metadata ?? {},
    occurred_at: event.occurred_at,
    contract_name: RUNTIME_EVENT_CONTRACT_NAME,
    contract_version: RUNTIME_EVENT_CONTRACT_VERSION,
    source_envelope_id: envelope.envelope_id,
    source_event_id: event.event_id,
    projected_at: stored.received.received_at,
  };
}
