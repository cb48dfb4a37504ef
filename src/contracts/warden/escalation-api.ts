import { z } from "zod";
import { severitySchema } from "../command/index.js";
import { isoUtc, nonEmptyString, oneOf } from "../common.js";

// Escalations as people see them (issue 35 "Escalations reach people"): the answers of /api/escalations, built
// from the ledger's ESCALATION_RAISED and ESCALATION_ACKED events.

/** Who acknowledged an escalation, from where (`api`, `telegram:<bot>`) and when. */
export const escalationAckSchema = z.looseObject({
  by: nonEmptyString,
  channel: nonEmptyString,
  at: isoUtc,
});

/** One ESCALATION_RAISED, its escalation_id being that event's event_id; acked is null while it is open. */
export const escalationSchema = z.looseObject({
  escalation_id: nonEmptyString,
  raised_at: isoUtc,
  severity: severitySchema,
  route: z.string().nullable(),
  reason: z.string().nullable(),
  theater_id: z.string().nullable(),
  run_id: z.string().nullable(),
  order_id: z.string().nullable(),
  acked: escalationAckSchema.nullable(),
});

export const escalationListSchema = z.looseObject({ escalations: z.array(escalationSchema) });

const FLAGS = ["0", "1", "true", "false"] as const;

/** `GET /api/escalations?open=1`: only those nobody has acknowledged yet. */
export const escalationListQuerySchema = z.looseObject({
  open: z.enum(FLAGS, { error: oneOf(FLAGS) }).optional(),
});

export type EscalationAck = z.output<typeof escalationAckSchema>;
export type Escalation = z.output<typeof escalationSchema>;
export type EscalationList = z.output<typeof escalationListSchema>;
