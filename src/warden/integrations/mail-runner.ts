import type { ImapFlow } from "imapflow";
import nodemailer from "nodemailer";
import { MAIL_ACTIONS, MAIL_READ_MAX_CHARS, type MailAction, type MailArgs } from "../../contracts/index.js";
import { dialAddress, type EgressDial, EgressRefusal } from "../../egress/index.js";
import type { IntegrationOutcome, IntegrationRunner } from "./integration-runner.js";
import {
  type MailAccount,
  type MailServerConfig,
  openImap,
  sentMailbox,
  tlsFor,
} from "./mail/mail-account.js";
import { MailError, readDraft, readMail, searchMail, writeDraft } from "./mail/mail-actions.js";
import { type PendingSend, PendingSends, sha256Of } from "./mail/pending-sends.js";

/** The user secret the mail tools log in to IMAP and SMTP with. */
export const MAIL_PASSWORD_SECRET = "MAIL_PASSWORD";

export interface MailRunnerOptions {
  /** `[integrations.mail]`; undefined: no user has mail tools. */
  config: MailServerConfig | undefined;
  password: (userId: string) => string | undefined;
  dial?: EgressDial | undefined;
  allowPrivate: boolean;
  now?: () => number;
}

/** What a person sees of a send waiting for them, and the answer to their confirmation. */
export interface PendingSendView {
  id: string;
  to: string[];
  subject: string;
  text: string;
  truncated: boolean;
  draft_uid: number;
  created_at: string;
  expires_at: string;
}

/** The person's side of the mail tools: what waits for them, and their confirmation or cancellation. */
export interface MailSends {
  /** Whether the user's mail tools can work: no server on this host, no password stored, or ready. */
  state(userId: string): "off" | "needs_password" | "ready";
  pending(userId: string): PendingSendView[];
  /** Sends the draft the agent asked to send, as it was then; only the person's own surfaces call this. */
  confirm(
    userId: string,
    id: string,
  ): Promise<
    | { ok: true; message_id: string; to: string[] }
    | { ok: false; code: "not_found" | "conflict" | "failed"; message: string }
  >;
  cancel(userId: string, id: string): boolean;
}

export type MailRunner = IntegrationRunner & MailSends;

/**
 * Mail over IMAP (search, read, drafts) and SMTP (sending), logged in as the user with their MAIL_PASSWORD, which
 * only this runner reads. The agent can search, read and write drafts; `send` only records a pending send, and
 * the mail leaves when the person confirms it (UI or API) — the exact draft the agent showed, or nothing.
 */
export function createMailRunner(options: MailRunnerOptions): MailRunner {
  const pendingSends = new PendingSends(options.now);
  const accountOf = (userId: string): MailAccount | undefined => {
    const password = options.password(userId);
    const config = options.config;
    if (!config || !password) return undefined;
    const user = config.username.replaceAll("{user}", userId);
    return {
      config,
      user,
      password,
      from: config.from ? config.from.replaceAll("{user}", userId) : user,
      dial: options.dial,
      allowPrivate: options.allowPrivate,
    };
  };
  return {
    name: "mail",
    configured: (userId) => accountOf(userId) !== undefined,
    async run(userId, action, args) {
      const account = accountOf(userId);
      if (!account) return notConfigured(options.config === undefined);
      if (!(MAIL_ACTIONS as readonly string[]).includes(action))
        return { ok: false, error: { code: "invalid", message: `unknown action ${action}` }, audit: {} };
      return withImap(account, async (client): Promise<IntegrationOutcome> => {
        const a = action as MailAction;
        if (a === "search") {
          const data = await searchMail(client, args as MailArgs["search"]);
          return { ok: true, data, audit: { mailbox: data.mailbox, found: data.total } };
        }
        if (a === "read") {
          const data = await readMail(client, args as MailArgs["read"]);
          return { ok: true, data, audit: { mailbox: data.message.mailbox, uid: data.message.uid } };
        }
        if (a === "draft") {
          const data = await writeDraft(client, account.from, args as MailArgs["draft"]);
          return {
            ok: true,
            data,
            audit: { mailbox: data.mailbox, uid: data.draft_uid, recipients: data.to.length },
          };
        }
        const { draft_uid } = args as MailArgs["send"];
        const draft = await readDraft(client, draft_uid);
        // What the person reads before confirming is the draft's own text, read from the server.
        const { message } = await readMail(client, {
          mailbox: draft.mailbox,
          uid: draft_uid,
          max_chars: MAIL_READ_MAX_CHARS,
        });
        const pending = pendingSends.add({
          userId,
          draftUid: draft_uid,
          recipients: draft.recipients,
          subject: draft.subject,
          text: message.text,
          truncated: message.truncated,
          sha256: sha256Of(draft.source),
        });
        return {
          ok: true,
          data: {
            pending_id: pending.id,
            status: "awaiting_confirmation",
            to: pending.recipients,
            subject: pending.subject,
            confirm_at: "the IronClaw web UI (Mail), or POST /api/integrations/mail/sends/{id}/confirm",
            expires_at: new Date(pending.expiresAt).toISOString(),
          },
          audit: { uid: draft_uid, recipients: pending.recipients.length, pending: pending.id },
        };
      });
    },
    state: (userId) => (!options.config ? "off" : accountOf(userId) ? "ready" : "needs_password"),
    pending: (userId) => pendingSends.list(userId).map(view),
    cancel: (userId, id) => pendingSends.take(userId, id) !== undefined,
    async confirm(userId, id) {
      const account = accountOf(userId);
      const send = pendingSends.take(userId, id);
      if (!send)
        return {
          ok: false,
          code: "not_found",
          message: `no pending send ${id} of yours (expired, done or cancelled?)`,
        };
      if (!account) return { ok: false, code: "failed", message: "mail is not set up for you any more" };
      try {
        return await deliver(account, send);
      } catch (error) {
        return { ok: false, code: "failed", message: clean(error, account.password) };
      }
    },
  };
}

async function deliver(account: MailAccount, send: PendingSend) {
  const client = await openImap(account);
  try {
    const draft = await readDraft(client, send.draftUid);
    if (sha256Of(draft.source) !== send.sha256)
      return {
        ok: false as const,
        code: "conflict" as const,
        message: `draft ${send.draftUid} changed after the send was asked for; nothing was sent`,
      };
    const { smtp_host, smtp_port, smtp_security, timeout_ms } = account.config;
    const address = await dialAddress(smtp_host, { dial: account.dial, allowPrivate: account.allowPrivate });
    const transport = nodemailer.createTransport({
      host: address,
      port: smtp_port,
      secure: smtp_security === "tls",
      requireTLS: smtp_security === "starttls",
      tls: tlsFor(account, smtp_host),
      auth: { user: account.user, pass: account.password },
      connectionTimeout: timeout_ms,
      greetingTimeout: timeout_ms,
      socketTimeout: timeout_ms,
    });
    const sent = await transport.sendMail({
      envelope: { from: account.from, to: draft.recipients },
      raw: draft.source,
    });
    transport.close();
    // Filed as the user's own mail client would: a copy in Sent, the draft gone.
    const sentBox = await sentMailbox(client);
    await client.append(sentBox, draft.source, ["\\Seen"]);
    await client.mailboxOpen(draft.mailbox);
    await client.messageDelete(String(send.draftUid), { uid: true });
    return { ok: true as const, message_id: sent.messageId ?? "", to: draft.recipients };
  } finally {
    await client.logout().catch(() => client.close());
  }
}

async function withImap(
  account: MailAccount,
  work: (client: ImapFlow) => Promise<IntegrationOutcome>,
): Promise<IntegrationOutcome> {
  let client: ImapFlow | undefined;
  try {
    client = await openImap(account);
    return await work(client);
  } catch (error) {
    if (error instanceof MailError)
      return { ok: false, error: { code: error.code, message: error.message }, audit: {} };
    if (error instanceof EgressRefusal)
      return { ok: false, error: { code: "refused", message: error.message }, audit: {} };
    if ((error as { authenticationFailed?: boolean }).authenticationFailed)
      return {
        ok: false,
        error: {
          code: "forbidden",
          message: `the mail server did not accept ${account.user} with the ${MAIL_PASSWORD_SECRET} secret (wrong or changed password?)`,
        },
        audit: { status: "auth_failed" },
      };
    return { ok: false, error: { code: "upstream", message: clean(error, account.password) }, audit: {} };
  } finally {
    await client?.logout().catch(() => client?.close());
  }
}

function notConfigured(noServer: boolean): IntegrationOutcome {
  return {
    ok: false,
    error: {
      code: "not_configured",
      message: noServer
        ? "no mail server is set up on this host ([integrations.mail])"
        : `mail is not set up for you: add your mail password as the secret ${MAIL_PASSWORD_SECRET}`,
    },
    audit: {},
  };
}

function view(send: PendingSend): PendingSendView {
  return {
    id: send.id,
    to: send.recipients,
    subject: send.subject,
    text: send.text,
    truncated: send.truncated,
    draft_uid: send.draftUid,
    created_at: new Date(send.createdAt).toISOString(),
    expires_at: new Date(send.expiresAt).toISOString(),
  };
}

/** A client library's message may quote the server; the password never belongs in an answer. */
function clean(error: unknown, password: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replaceAll(password, "[secret]").slice(0, 1800);
}
