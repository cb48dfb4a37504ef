import {
  type CompleteRuntimeEventEnvelope,
  payloadForm,
  type RuntimeEventBatch,
  type RuntimeEventPayloadForm,
  runtimeEventBatchContract,
  runtimeEventEnvelopeContract,
  runtimeEventListContract,
  runtimeEventPayloadContract,
  toEnvelopes,
} from "../../contracts/index.js";
import { issuesFromZod, sha256Hex, ValidationError } from "../../core/index.js";
import { derivedUuid } from "./derived-id.js";

/** One envelope of a received payload: as it arrived, and completed. */
export interface IntakeEnvelope {
  /** Where it sat in the payload: 0 for a single envelope, its index in a list or in a batch's events. */
  index: number;
  /** The envelope as received: a list item, the single envelope, or a batch event under the batch's header. */
  raw: Record<string, unknown>;
  envelope: CompleteRuntimeEventEnvelope;
}

export interface Intake {
  sha256: string;
  /** The payload decoded, exactly: its UTF-8 encoding is the received bytes. */
  text: string;
  form: RuntimeEventPayloadForm;
  /** When it arrived: the time of every value completion generated, and of its projections. */
  receivedAt: string;
  envelopes: IntakeEnvelope[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Each form's own schema. The payload contract decides the form and checks it with exactly these, then checks
 * the result again against the union of all three (for its type and JSON Schema); calling the form's schema
 * directly reports the same issues and checks a payload once. Unknown keys are kept, so the contract's
 * unknown-key warnings, a second walk over the whole payload, are not computed at all.
 */
const formSchemas = {
  list: runtimeEventListContract.schema,
  batch: runtimeEventBatchContract.schema,
  envelope: runtimeEventEnvelopeContract.schema,
} as const;

/**
 * Decodes and checks a received payload (seed 004: "a single event envelope, a list of event envelopes, or a
 * batch object with events"), refusing it whole with every problem (field path and rule) when any part is bad.
 * Completion fills what the runtime omitted; the ids it generates are derived from the payload's sha256 and the
 * order they are drawn in, so a retried send of the same bytes is recognised as a duplicate instead of becoming
 * a second event. Omitted times are `receivedAt`.
 */
export function readPayload(bytes: Buffer, receivedAt: Date): Intake {
  const contract = runtimeEventPayloadContract.kind;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ValidationError(contract, [{ path: "$", code: "invalid_utf8", message: "must be UTF-8 text" }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ValidationError(contract, [
      { path: "$", code: "invalid_json", message: `must be JSON: ${(cause as Error).message}` },
    ]);
  }
  const form = payloadForm(value);
  const checked = formSchemas[form].safeParse(value);
  if (!checked.success) throw new ValidationError(contract, issuesFromZod(checked.error));
  const sha256 = sha256Hex(bytes);
  let draws = 0;
  const completed = toEnvelopes(checked.data, {
    now: () => receivedAt,
    newId: () => derivedUuid("runtime-event-payload", sha256, String(draws++)),
  });
  const raws = rawEnvelopes(value, form);
  return {
    sha256,
    text,
    form,
    receivedAt: receivedAt.toISOString(),
    envelopes: completed.map((envelope, index) => ({ index, raw: raws[index] ?? {}, envelope })),
  };
}

function rawEnvelopes(value: unknown, form: RuntimeEventPayloadForm): Record<string, unknown>[] {
  if (form === "list") return value as Record<string, unknown>[];
  if (form === "envelope") return [value as Record<string, unknown>];
  const { events, ...header } = value as RuntimeEventBatch;
  return events.map((event) => ({ ...header, event }));
}
