import type { RuntimeEventBatch, RuntimeEventEnvelope } from "./runtime-envelope.js";
import {
  RUNTIME_EVENT_SCHEMA_VERSION,
  type RuntimeEvent,
  type SessionFeedbackEvent,
  type SessionStartedEvent,
} from "./runtime-event.js";
import { payloadForm, type RuntimeEventPayload } from "./runtime-payload.js";

/**
 * Where generated values come from. `newId` should return UUIDs, what Appleseed generates (the seed's examples
 * print them), e.g. `crypto.randomUUID`; tests pass counters and a fixed clock.
 */
export interface EventIdentity {
  now: () => Date;
  newId: () => string;
}

type Completed<E> = E & {
  schema_version: typeof RUNTIME_EVENT_SCHEMA_VERSION;
  event_id: string;
  occurred_at: string;
};

export type CompleteRuntimeEvent = Completed<SessionStartedEvent> | Completed<SessionFeedbackEvent>;

export type CompleteRuntimeEventEnvelope = Omit<
  RuntimeEventEnvelope,
  "envelope_id" | "recorded_at" | "metadata" | "event"
> & {
  envelope_id: string;
  recorded_at: string;
  metadata: Record<string, unknown>;
  event: CompleteRuntimeEvent;
};

/** Fills what the runtime may omit: schema_version 1.1, a new event_id, and now as occurred_at. */
export function completeRuntimeEvent<E extends RuntimeEvent>(
  event: E,
  identity: EventIdentity,
): Completed<E> {
  return {
    ...event,
    schema_version: event.schema_version ?? RUNTIME_EVENT_SCHEMA_VERSION,
    event_id: event.event_id ?? identity.newId(),
    occurred_at: event.occurred_at ?? identity.now().toISOString(),
  };
}

/**
 * Turns any accepted payload into complete per-event envelopes, in payload order. The clock is read once, so
 * every value generated for one payload carries the same time (an envelope without recorded_at is recorded
 * now); for each envelope the envelope id is drawn before the event id. A batch's header (and a deep copy of its
 * metadata) goes onto each of its events, keys the seed does not name included.
 */
export function toEnvelopes(
  payload: RuntimeEventPayload,
  identity: EventIdentity,
): CompleteRuntimeEventEnvelope[] {
  const at = identity.now();
  const fixed: EventIdentity = { now: () => at, newId: identity.newId };
  if (Array.isArray(payload)) return payload.map((envelope) => completeEnvelope(envelope, fixed));
  if (payloadForm(payload) === "batch") {
    // Open objects type every other key as unknown, so `in` cannot narrow; the schema decided the form the same way.
    const { events, metadata, ...header } = payload as RuntimeEventBatch;
    return events.map((event) =>
      completeEnvelope(
        { ...header, metadata: structuredClone(metadata ?? {}), recorded_at: at.toISOString(), event },
        fixed,
      ),
    );
  }
  return [completeEnvelope(payload as RuntimeEventEnvelope, fixed)];
}

function completeEnvelope(
  envelope: RuntimeEventEnvelope,
  identity: EventIdentity,
): CompleteRuntimeEventEnvelope {
  const envelope_id = envelope.envelope_id ?? identity.newId();
  return {
    ...envelope,
    envelope_id,
    recorded_at: envelope.recorded_at ?? identity.now().toISOString(),
    metadata: envelope.metadata ?? {},
    event: completeRuntimeEvent(envelope.event, identity),
  };
}
