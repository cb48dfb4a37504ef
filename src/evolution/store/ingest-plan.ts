import type { IngestedEnvelope, IngestResult, RuntimeEventPayloadForm } from "../../contracts/index.js";
import { IronclawError } from "../../core/index.js";
import type { Intake } from "./payload-intake.js";
import type { StoreState } from "./store-state.js";
import { projectionRecordId, type StoredEnvelope } from "./stored-records.js";

/** A warden user sending events: a user writes only sessions that are new or already theirs; an admin any. */
export interface Submitter {
  userId: string;
  admin: boolean;
}

function sessionPath(form: RuntimeEventPayloadForm, index: number): string {
  if (form === "list") return `$[${index}].event.session_id`;
  if (form === "batch") return `$.events[${index}].session_id`;
  return "$.event.session_id";
}

/**
 * Decides, against what is stored, which envelopes of a checked payload are new and which are duplicates (an
 * envelope_id or event_id already stored, or earlier in the same payload), after refusing the whole payload if
 * it writes a session that belongs to someone other than its submitter.
 */
export function planIngest(
  intake: Intake,
  state: StoreState,
  submitter: Submitter | undefined,
): { fresh: StoredEnvelope[]; result: IngestResult } {
  if (submitter && !submitter.admin) {
    for (const { index, envelope } of intake.envelopes) {
      const owner = state.sessionOwners.get(envelope.event.session_id);
      if (owner !== undefined && owner !== submitter.userId)
        throw new IronclawError(
          "forbidden",
          `${sessionPath(intake.form, index)}: session ${envelope.event.session_id} belongs to another user`,
        );
    }
  }
  const envelopeIds = new Set<string>();
  const eventIds = new Set<string>();
  const fresh: StoredEnvelope[] = [];
  const envelopes: IngestedEnvelope[] = intake.envelopes.map(({ index, raw, envelope }) => {
    const { envelope_id } = envelope;
    const { event_id, event_kind, session_id } = envelope.event;
    const reason =
      state.envelopeIds.has(envelope_id) || envelopeIds.has(envelope_id)
        ? `envelope_id ${envelope_id} is already stored`
        : state.eventIds.has(event_id) || eventIds.has(event_id)
          ? `event_id ${event_id} is already stored`
          : null;
    const base = { index, envelope_id, event_id, event_kind, session_id };
    if (reason) return { ...base, outcome: "skipped", reason, record_id: null };
    envelopeIds.add(envelope_id);
    eventIds.add(event_id);
    fresh.push({
      envelope,
      raw,
      received: {
        payload_sha256: intake.sha256,
        payload_text: fresh.length === 0 ? intake.text : null,
        payload_form: intake.form,
        payload_index: index,
        received_at: intake.receivedAt,
        submitted_by: submitter?.userId ?? null,
      },
    });
    const record_id = event_kind === "session_feedback" ? projectionRecordId(envelope_id, event_id) : null;
    return { ...base, outcome: "stored", reason: null, record_id };
  });
  const stored = fresh.length;
  return {
    fresh,
    result: {
      payload_sha256: intake.sha256,
      payload_form: intake.form,
      stored,
      skipped: envelopes.length - stored,
      projected: envelopes.filter((e) => e.record_id !== null).length,
      envelopes,
    },
  };
}
