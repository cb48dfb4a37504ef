import type { FetchMessageObject, ImapFlow, MessageStructureObject } from "imapflow";
import MailComposer from "nodemailer/lib/mail-composer";
import { readableText } from "../../../agent/index.js";
import type { MailArgs, MailResults, MailSummary } from "../../../contracts/index.js";
import { draftsMailbox } from "./mail-account.js";

/** A failure the tool reports as it is (a missing message, a missing mailbox). */
export class MailError extends Error {
  constructor(
    readonly code: "not_found" | "invalid",
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_LIMIT = 20;
const DEFAULT_READ_CHARS = 8000;

export async function searchMail(client: ImapFlow, args: MailArgs["search"]): Promise<MailResults["search"]> {
  const mailbox = args.mailbox ?? "INBOX";
  await open(client, mailbox, true);
  const query = {
    ...(args.from ? { from: args.from } : {}),
    ...(args.to ? { to: args.to } : {}),
    ...(args.subject ? { subject: args.subject } : {}),
    ...(args.text ? { body: args.text } : {}),
    ...(args.since ? { since: new Date(`${args.since}T00:00:00Z`) } : {}),
    ...(args.before ? { before: new Date(`${args.before}T00:00:00Z`) } : {}),
    ...(args.unseen ? { seen: false } : {}),
  };
  const found =
    (await client.search(Object.keys(query).length > 0 ? query : { all: true }, { uid: true })) || [];
  const newest = [...found].sort((a, b) => b - a).slice(0, args.limit ?? DEFAULT_LIMIT);
  const messages: MailSummary[] = [];
  if (newest.length > 0)
    for await (const m of client.fetch(
      newest.join(","),
      { uid: true, envelope: true, flags: true },
      { uid: true },
    ))
      messages.push(summary(mailbox, m));
  messages.sort((a, b) => b.uid - a.uid);
  return { mailbox, total: found.length, messages };
}

export async function readMail(client: ImapFlow, args: MailArgs["read"]): Promise<MailResults["read"]> {
  const mailbox = args.mailbox ?? "INBOX";
  await open(client, mailbox, true);
  const m = await client.fetchOne(
    String(args.uid),
    { uid: true, envelope: true, flags: true, bodyStructure: true },
    { uid: true },
  );
  if (!m) throw new MailError("not_found", `no message with uid ${args.uid} in ${mailbox}`);
  const parts = leaves(m.bodyStructure);
  const textPart = parts.find((p) => p.type === "text/plain" && p.disposition !== "attachment");
  const htmlPart = parts.find((p) => p.type === "text/html" && p.disposition !== "attachment");
  const chosen = textPart ?? htmlPart;
  let text = "";
  if (chosen) {
    const { content } = await client.download(String(args.uid), chosen.part ?? "1", {
      uid: true,
      maxBytes: 512 * 1024,
    });
    // Mail's line ends are CRLF on the wire; a reader (the agent, a person confirming) gets plain lines.
    const raw = content ? (await readAll(content)).toString("utf8").replaceAll("\r\n", "\n") : "";
    text = chosen === textPart ? raw : (await readableText(raw)).text;
  }
  const max = args.max_chars ?? DEFAULT_READ_CHARS;
  return {
    message: {
      ...summary(mailbox, m),
      cc: (m.envelope?.cc ?? []).map(addressText),
      text: text.slice(0, max),
      truncated: text.length > max,
      attachments: parts
        .filter(
          (p) =>
            p.disposition === "attachment" ||
            (p !== textPart &&
              p !== htmlPart &&
              !p.type.startsWith("multipart/") &&
              p.dispositionParameters?.filename),
        )
        .map((p) => ({
          filename: p.dispositionParameters?.filename ?? p.parameters?.name ?? "(unnamed)",
          size: p.size ?? 0,
        })),
    },
  };
}

/** Writes the draft into the Drafts mailbox as the user's own message; nothing is sent. */
export async function writeDraft(
  client: ImapFlow,
  from: string,
  args: MailArgs["draft"],
): Promise<MailResults["draft"]> {
  const threading = args.reply_to_uid === undefined ? {} : await threadOf(client, args.reply_to_uid);
  const raw = await new MailComposer({
    from,
    to: args.to,
    ...(args.cc && args.cc.length > 0 ? { cc: args.cc } : {}),
    subject: args.subject,
    text: args.text,
    ...threading,
  })
    .compile()
    .build();
  const mailbox = await draftsMailbox(client);
  const appended = await client.append(mailbox, raw, ["\\Draft", "\\Seen"]);
  if (!appended || appended.uid === undefined)
    throw new MailError("invalid", "the mail server stored the draft but did not say its uid (no UIDPLUS)");
  return { draft_uid: appended.uid, mailbox, to: [...args.to, ...(args.cc ?? [])], subject: args.subject };
}

/** A draft as the person will confirm it: recipients, subject, and its exact bytes (what will be sent). */
export async function readDraft(client: ImapFlow, uid: number) {
  const mailbox = await draftsMailbox(client);
  await open(client, mailbox, true);
  const m = await client.fetchOne(String(uid), { uid: true, envelope: true, source: true }, { uid: true });
  if (m === false || !m.source) throw new MailError("not_found", `no draft with uid ${uid} in ${mailbox}`);
  const recipients = [...(m.envelope?.to ?? []), ...(m.envelope?.cc ?? []), ...(m.envelope?.bcc ?? [])]
    .map((a) => a.address)
    .filter((a): a is string => Boolean(a));
  if (recipients.length === 0) throw new MailError("invalid", `draft ${uid} has no recipients`);
  return { mailbox, recipients, subject: m.envelope?.subject ?? "", source: m.source };
}

async function threadOf(
  client: ImapFlow,
  uid: number,
): Promise<{ inReplyTo?: string; references?: string[] }> {
  await open(client, "INBOX", true);
  const m = await client.fetchOne(
    String(uid),
    { uid: true, envelope: true, headers: ["references"] },
    { uid: true },
  );
  if (!m) throw new MailError("not_found", `no message with uid ${uid} in INBOX to reply to`);
  const id = m.envelope?.messageId;
  if (!id) return {};
  const earlier = (m.headers?.toString("utf8").match(/<[^>]+>/g) ?? []).slice(-20);
  return { inReplyTo: id, references: [...earlier, id] };
}

async function open(client: ImapFlow, mailbox: string, readOnly: boolean): Promise<void> {
  try {
    await client.mailboxOpen(mailbox, { readOnly });
  } catch {
    throw new MailError("not_found", `no mailbox named ${mailbox}`);
  }
}

function summary(mailbox: string, m: FetchMessageObject): MailSummary {
  const e = m.envelope;
  return {
    uid: m.uid,
    mailbox,
    from: (e?.from ?? []).map(addressText).join(", "),
    to: (e?.to ?? []).map(addressText),
    subject: e?.subject ?? "",
    date: e?.date ? new Date(e.date).toISOString() : "",
    seen: m.flags?.has("\\Seen") ?? false,
  };
}

function addressText(a: { name?: string; address?: string }): string {
  return a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? "");
}

function leaves(node: MessageStructureObject | undefined): MessageStructureObject[] {
  if (!node) return [];
  if (node.childNodes && node.childNodes.length > 0) return node.childNodes.flatMap(leaves);
  return [node];
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
