import { z } from "zod";
import {
  checkValue,
  defineContract,
  directFeedbackRecordSchema,
  type EvolutionEventRecord,
  routedSessionRecordSchema,
} from "../../contracts/index.js";
import { canonicalJson, ValidationError } from "../../core/index.js";
import { derivedUuid } from "./derived-id.js";

const optionalOnRecord = { user_id: true, metadata: true, occurred_at: true, record_id: true } as const;

/** A session the warden routed: its task and the skills and tools it started with. */
const routedSessionInputSchema = routedSessionRecordSchema.partial({
  ...optionalOnRecord,
  selected_skill_ids: true,
  tools: true,
});
/** Feedback given directly on a session (a thumbs up or down with a comment, an order's outcome). */
const directFeedbackInputSchema = directFeedbackRecordSchema.partial({ ...optionalOnRecord, comment: true });

const directRecordInputContract = defineContract({
  kind: "evolution-direct-record",
  seed: "004",
  title: "Direct record input",
  description: "A routed session or direct feedback before the store fills its id, time and defaults.",
  format: "json",
  schema: z.discriminatedUnion("record_kind", [routedSessionInputSchema, directFeedbackInputSchema]),
});

export type RoutedSessionInput = z.input<typeof routedSessionInputSchema>;
export type DirectFeedbackInput = z.input<typeof directFeedbackInputSchema>;
export type DirectRecordInput = RoutedSessionInput | DirectFeedbackInput;

/**
 * Checks a direct record and fills what the caller left out: an empty list or object, a null user (the host),
 * now as occurred_at, and a record_id derived from the rest, so recording the same thing twice stores it once.
 */
export function completeDirectRecord(input: DirectRecordInput, now: Date): EvolutionEventRecord {
  const checked = checkValue(directRecordInputContract, input);
  if (!checked.ok) throw new ValidationError(directRecordInputContract.kind, checked.issues);
  const { record_id, ...given } = checked.value;
  const common = {
    user_id: given.user_id ?? null,
    metadata: given.metadata ?? {},
    occurred_at: given.occurred_at ?? now.toISOString(),
  };
  const rest =
    given.record_kind === "routed_session"
      ? { ...given, ...common, selected_skill_ids: given.selected_skill_ids ?? [], tools: given.tools ?? [] }
      : { ...given, ...common, comment: given.comment ?? null };
  return { ...rest, record_id: record_id ?? derivedUuid("evolution-event", canonicalJson(rest)) };
}
