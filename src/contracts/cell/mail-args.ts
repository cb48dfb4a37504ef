import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";

// The mail integration's actions and their arguments (issue #38: search, read, draft, send with confirmation).
// The warden logs in to the user's IMAP and SMTP servers with the user's own password; a cell only names a
// mailbox, a message uid or the text of a draft. Sending is two steps: the agent asks, the person confirms in the
// UI (or through the API) — an agent alone never sends mail.

export const MAIL_ACTIONS = ["search", "read", "draft", "send"] as const;
export type MailAction = (typeof MAIL_ACTIONS)[number];

/** Most messages one search returns, and the longest body one read returns. */
export const MAIL_SEARCH_MAX = 50;
export const MAIL_READ_MAX_CHARS = 20_000;

const mailbox = aString()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .refine((m) => !/[\r\n\0*%]/.test(m), "must not contain line breaks, NUL, * or %")
  .optional()
  .describe("the mailbox (folder), default INBOX");
const uid = aNumber()
  .int("must be an integer")
  .min(1, "must be at least 1")
  .describe("the message's uid, as listed");
const day = aString()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date like 2026-12-01")
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), "must be a real date");
// An address as a person writes it, without a display name: one @, no spaces or angle brackets, no line breaks
// (a header injection needs a line break; none passes here).
const address = aString()
  .max(254, "must be at most 254 characters")
  .regex(/^[^\s@<>,;"()]+@[^\s@<>,;"()]+\.[^\s@<>,;"()]+$/, "must be an email address like ada@example.org");
const searchText = aString()
  .max(200, "must be at most 200 characters")
  .refine((t) => !/[\r\n\0]/.test(t), "must be one line");

export const mailArgsSchemas = {
  search: z.strictObject({
    mailbox,
    from: searchText.optional().describe("part of the sender's address or name"),
    to: searchText.optional().describe("part of a recipient's address or name"),
    subject: searchText.optional().describe("words in the subject"),
    text: searchText.optional().describe("words anywhere in the message"),
    since: day.optional().describe("on or after this date"),
    before: day.optional().describe("before this date"),
    unseen: aBoolean().optional().describe("only messages not read yet"),
    limit: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(MAIL_SEARCH_MAX, `must be at most ${MAIL_SEARCH_MAX}`)
      .optional()
      .describe("how many of the newest matches to return (default 20)"),
  }),
  read: z.strictObject({
    mailbox,
    uid,
    max_chars: aNumber()
      .int("must be an integer")
      .min(100, "must be at least 100")
      .max(MAIL_READ_MAX_CHARS, `must be at most ${MAIL_READ_MAX_CHARS}`)
      .optional()
      .describe("the longest body text returned (default 8000)"),
  }),
  draft: z.strictObject({
    to: z
      .array(address)
      .min(1, "must name at least one recipient")
      .max(20, "must name at most 20 recipients"),
    cc: z.array(address).max(20, "must name at most 20 recipients").optional(),
    subject: aString()
      .max(300, "must be at most 300 characters")
      .refine((t) => !/[\r\n\0]/.test(t), "must be one line"),
    text: aString().max(MAIL_READ_MAX_CHARS, `must be at most ${MAIL_READ_MAX_CHARS} characters`),
    reply_to_uid: uid.optional().describe("the INBOX message this answers (threads the reply)"),
  }),
  send: z.strictObject({
    draft_uid: uid.describe("the draft's uid in the Drafts mailbox, as mail_draft returned it"),
  }),
} satisfies Record<MailAction, z.ZodType>;

export type MailArgs = { [A in MailAction]: z.output<(typeof mailArgsSchemas)[A]> };
