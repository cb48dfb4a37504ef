import { ImapFlow } from "imapflow";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MailServers,
  mailServersMissing,
  startMailServers,
} from "../../../test/support/mail-servers.js";
import { createCellCa } from "../../egress/index.js";
import { createMailRunner, type MailRunner } from "./mail-runner.js";

// The mail tools against a real Postfix (SMTP) and Dovecot (IMAP) on loopback, both over TLS with a test CA's
// certificate for mail.example.test, reached through the egress dial hook as that name.
const missing = mailServersMissing();
if (missing) console.warn(`mail runner tests skipped: ${missing}`);

const HOST = "mail.example.test";
const ca = createCellCa();
let servers: MailServers;
let clock = Date.parse("2026-11-28T10:00:00Z");

function runner(options: { password?: string; allowPrivate?: boolean; trust?: boolean } = {}): MailRunner {
  return createMailRunner({
    config: {
      imap_host: HOST,
      imap_port: servers.imapPort,
      smtp_host: HOST,
      smtp_port: servers.smtpPort,
      smtp_security: "tls",
      username: servers.user,
      from: servers.user,
      timeout_ms: 20_000,
    },
    password: () => options.password ?? servers.password,
    dial: { hosts: { [HOST]: "127.0.0.1" }, extraCa: options.trust === false ? [] : [ca.certPem] },
    allowPrivate: options.allowPrivate ?? true,
    now: () => clock,
  });
}

const signal = new AbortController().signal;

async function deliver(message: SendMailOptions): Promise<void> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: servers.smtpPort,
    secure: true,
    tls: { servername: HOST, ca: [ca.certPem] },
  });
  await transport.sendMail({ from: "bob@example.test", to: servers.user, ...message });
  transport.close();
}

/** Mail goes Postfix → LMTP → Dovecot a moment after SMTP accepted it: wait until the subject is in the mailbox. */
async function arrived(mail: MailRunner, subject: string, mailbox = "INBOX"): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const found = await mail.run("ada", "search", { mailbox, subject }, signal);
    if (found.ok && (found.data.total as number) > 0)
      return (found.data.messages as Array<{ uid: number }>)[0]?.uid ?? 0;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`"${subject}" never arrived in ${mailbox}`);
}

describe.skipIf(missing !== undefined)("mail over real IMAP and SMTP", () => {
  beforeAll(async () => {
    const leaf = ca.leafFor(HOST);
    servers = await startMailServers({ certPem: leaf.certPem, keyPem: leaf.keyPem });
  }, 60_000);
  afterAll(async () => {
    await servers?.stop();
  });

  it("searches and reads received mail: text, an HTML-only message as text, attachments named", async () => {
    const mail = runner();
    await deliver({ subject: "Quarterly numbers", text: "Revenue is up 12%.\nSee you Monday." });
    await deliver({
      subject: "Newsletter",
      html: "<html><body><h1>News</h1><p>The <b>garden</b> opens Friday.</p></body></html>",
      attachments: [{ filename: "plan.txt", content: "a plan" }],
    });
    const uid = await arrived(mail, "Quarterly numbers");
    const read = await mail.run("ada", "read", { uid }, signal);
    expect(read.ok && read.data).toMatchObject({
      message: {
        subject: "Quarterly numbers",
        from: "bob@example.test",
        text: expect.stringContaining("Revenue is up 12%"),
      },
    });
    const htmlUid = await arrived(mail, "Newsletter");
    const html = await mail.run("ada", "read", { uid: htmlUid }, signal);
    if (!html.ok) throw new Error(html.error.message);
    const message = html.data.message as { text: string; attachments: Array<{ filename: string }> };
    expect(message.text).toContain("garden");
    expect(message.text).not.toContain("<b>");
    expect(message.attachments.map((a) => a.filename)).toEqual(["plan.txt"]);
    const unread = await mail.run("ada", "search", { unseen: true, from: "bob" }, signal);
    expect(unread.ok && unread.data.total).toBeGreaterThanOrEqual(1);
    const none = await mail.run("ada", "read", { uid: 999_999 }, signal);
    expect(none).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("drafts and asks to send, but nothing leaves until the person confirms; then it is delivered, filed in Sent and the draft is gone", async () => {
    const mail = runner();
    const drafted = await mail.run(
      "ada",
      "draft",
      { to: [servers.user], subject: "Lunch on Friday?", text: "Shall we meet at noon?" },
      signal,
    );
    if (!drafted.ok) throw new Error(drafted.error.message);
    const draftUid = drafted.data.draft_uid as number;
    const asked = await mail.run("ada", "send", { draft_uid: draftUid }, signal);
    if (!asked.ok) throw new Error(asked.error.message);
    expect(asked.data).toMatchObject({
      status: "awaiting_confirmation",
      to: [servers.user],
      subject: "Lunch on Friday?",
    });
    const id = asked.data.pending_id as string;
    // The person reads the draft's own text, as the server holds it, before confirming.
    expect(mail.pending("ada")).toMatchObject([
      { id, to: [servers.user], subject: "Lunch on Friday?", truncated: false },
    ]);
    expect(mail.pending("ada")[0]?.text.trim()).toBe("Shall we meet at noon?");
    // Not sent: the inbox has no such mail, however long one waits for it.
    await new Promise((r) => setTimeout(r, 1500));
    const before = await mail.run("ada", "search", { subject: "Lunch on Friday?" }, signal);
    expect(before.ok && before.data.total).toBe(0);
    // Another user cannot confirm it.
    expect(await mail.confirm("bob", id)).toMatchObject({ ok: false, code: "not_found" });

    const sent = await mail.confirm("ada", id);
    expect(sent).toMatchObject({ ok: true, to: [servers.user] });
    await arrived(mail, "Lunch on Friday?");
    await arrived(mail, "Lunch on Friday?", "Sent");
    const drafts = await mail.run(
      "ada",
      "search",
      { mailbox: "Drafts", subject: "Lunch on Friday?" },
      signal,
    );
    expect(drafts.ok && drafts.data.total).toBe(0);
    expect(mail.pending("ada")).toEqual([]);
    expect(await mail.confirm("ada", id)).toMatchObject({ ok: false, code: "not_found" });
  });

  it("a reply is threaded to the message it answers", async () => {
    const mail = runner();
    await deliver({ subject: "Question about the lease", text: "Can we renew?" });
    const uid = await arrived(mail, "Question about the lease");
    const drafted = await mail.run(
      "ada",
      "draft",
      { to: ["bob@example.test"], subject: "Re: Question about the lease", text: "Yes.", reply_to_uid: uid },
      signal,
    );
    if (!drafted.ok) throw new Error(drafted.error.message);
    const client = new ImapFlow({
      host: "127.0.0.1",
      port: servers.imapPort,
      secure: true,
      servername: HOST,
      tls: { ca: [ca.certPem], servername: HOST },
      auth: { user: servers.user, pass: servers.password },
      logger: false,
    });
    await client.connect();
    await client.mailboxOpen("Drafts");
    const source = await client.fetchOne(String(drafted.data.draft_uid), { source: true }, { uid: true });
    await client.logout();
    expect(source === false ? undefined : source.source?.toString()).toMatch(/^In-Reply-To: <[^>]+>/m);
  });

  it("a cancelled or expired send is never made", async () => {
    const mail = runner();
    const draft = async (subject: string) => {
      const d = await mail.run("ada", "draft", { to: [servers.user], subject, text: "x" }, signal);
      if (!d.ok) throw new Error(d.error.message);
      const s = await mail.run("ada", "send", { draft_uid: d.data.draft_uid as number }, signal);
      if (!s.ok) throw new Error(s.error.message);
      return s.data.pending_id as string;
    };
    const cancelled = await draft("Cancelled one");
    expect(mail.cancel("ada", cancelled)).toBe(true);
    expect(await mail.confirm("ada", cancelled)).toMatchObject({ ok: false, code: "not_found" });
    const expired = await draft("Expired one");
    clock += 61 * 60 * 1000;
    expect(await mail.confirm("ada", expired)).toMatchObject({ ok: false, code: "not_found" });
    await new Promise((r) => setTimeout(r, 1000));
    for (const subject of ["Cancelled one", "Expired one"]) {
      const found = await mail.run("ada", "search", { subject }, signal);
      expect(found.ok && found.data.total).toBe(0);
    }
  });

  it("refuses a wrong password, an untrusted certificate and a loopback address the host does not allow, without the password in any answer", async () => {
    const wrong = await runner({ password: "not-the-password" }).run("ada", "search", {}, signal);
    expect(wrong).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(JSON.stringify(wrong)).not.toContain("not-the-password");
    const untrusted = await runner({ trust: false }).run("ada", "search", {}, signal);
    expect(untrusted).toMatchObject({ ok: false, error: { code: "upstream" } });
    expect(JSON.stringify(untrusted)).not.toContain(servers.password);
    const loopback = await runner({ allowPrivate: false }).run("ada", "search", {}, signal);
    expect(loopback).toMatchObject({
      ok: false,
      error: { code: "refused", message: expect.stringContaining("127.0.0.1") },
    });
  });

  it("without a server or a password the user has no mail tools", async () => {
    const unset = createMailRunner({ config: undefined, password: () => "x", allowPrivate: true });
    expect(unset.configured("ada")).toBe(false);
    expect(await unset.run("ada", "search", {}, signal)).toMatchObject({
      ok: false,
      error: { code: "not_configured" },
    });
    const noPassword = createMailRunner({
      config: {
        imap_host: HOST,
        imap_port: 993,
        smtp_host: HOST,
        smtp_port: 465,
        smtp_security: "tls",
        username: "{user}",
        from: "",
        timeout_ms: 1000,
      },
      password: () => undefined,
      allowPrivate: true,
    });
    expect(noPassword.configured("ada")).toBe(false);
    expect(await noPassword.run("ada", "search", {}, signal)).toMatchObject({
      ok: false,
      error: { code: "not_configured", message: expect.stringContaining("MAIL_PASSWORD") },
    });
  });
});
