import { z } from "zod";

// The person's side of the mail tools' sends (issue #38, "send with confirmation"): an agent's mail_send only
// records a pending send of one draft; it leaves when its person confirms it here, in the UI or over the API.

/** One send waiting for its person: the draft, its recipients and subject as they were when the agent asked. */
export const pendingMailSendSchema = z.strictObject({
  id: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  /** The draft's text as the server holds it: what the person reads before confirming. */
  text: z.string(),
  /** Whether `text` is only the draft's start (a long mail). */
  truncated: z.boolean(),
  draft_uid: z.number().int(),
  created_at: z.string(),
  expires_at: z.string(),
});

/**
 * GET /api/integrations/mail/sends: whether the caller's mail tools can work (`off`: no mail server is set up on
 * this host; `needs_password`: the caller has not stored the MAIL_PASSWORD secret; `ready`), and the caller's
 * sends waiting for confirmation, oldest first.
 */
export const pendingMailSendsSchema = z.strictObject({
  mail: z.enum(["off", "needs_password", "ready"]),
  sends: z.array(pendingMailSendSchema),
});

/** The path's send id, checked before anything is looked up. */
export const mailSendParamsSchema = z.strictObject({
  id: z
    .string({ error: "must be a pending send id" })
    .regex(
      /^send_[A-Za-z0-9_-]{16}$/,
      "must be a pending send id like send_AbC…, as GET /api/integrations/mail/sends lists it",
    ),
});

/** POST …/confirm: the mail left; its Message-ID and who it went to. */
export const mailSentSchema = z.strictObject({ message_id: z.string(), to: z.array(z.string()) });

/** POST …/cancel: the send is gone, nothing was sent. */
export const mailSendCancelledSchema = z.strictObject({ id: z.string(), cancelled: z.literal(true) });
