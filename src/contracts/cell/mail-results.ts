import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import type { MailAction } from "./mail-args.js";

// What each mail action answers, compact: what a person reads of a message. A send is never done by the action
// itself: it answers with the pending send the person has to confirm.

export const mailSummarySchema = z.strictObject({
  uid: aNumber(),
  mailbox: aString(),
  from: aString(),
  to: z.array(aString()),
  subject: aString(),
  date: aString(),
  seen: aBoolean(),
});
export type MailSummary = z.output<typeof mailSummarySchema>;

export const mailResultSchemas = {
  search: z.strictObject({
    mailbox: aString(),
    /** How many messages matched in all; `messages` holds the newest `limit` of them, newest first. */
    total: aNumber(),
    messages: z.array(mailSummarySchema),
  }),
  read: z.strictObject({
    message: mailSummarySchema.extend({
      cc: z.array(aString()),
      text: aString(),
      truncated: aBoolean(),
      attachments: z.array(z.strictObject({ filename: aString(), size: aNumber() })),
    }),
  }),
  draft: z.strictObject({
    draft_uid: aNumber(),
    mailbox: aString(),
    to: z.array(aString()),
    subject: aString(),
  }),
  send: z.strictObject({
    pending_id: aString(),
    status: z.literal("awaiting_confirmation"),
    to: z.array(aString()),
    subject: aString(),
    /** Where the person confirms it. */
    confirm_at: aString(),
    expires_at: aString(),
  }),
} satisfies Record<MailAction, z.ZodType>;

export type MailResults = { [A in MailAction]: z.output<(typeof mailResultSchemas)[A]> };
