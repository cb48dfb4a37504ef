import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailServers, mailServersMissing, startMailHost } from "../support/mail-servers.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Mail from a user's own agent in a real cell (bwrap, no network): the scripted model drafts a mail and asks to
// send it; the warden logs in to a real Dovecot (IMAP) with the user's MAIL_PASSWORD secret, keeps the send
// pending, and only the person's confirmation over the API makes Postfix deliver it. The password stays in the
// warden: nothing the cell sent to the model holds it.

const missing = mailServersMissing();
if (missing) console.warn(`mail tools journey skipped: ${missing}`);

let h: WardenHarness;
let servers: MailServers;
let inboxSubjects: () => Promise<string[]>;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;

describe.skipIf(missing !== undefined)("the mail tools from a user's own agent in a real cell", () => {
  beforeAll(async () => {
    const mail = await startMailHost();
    servers = mail.servers;
    inboxSubjects = () => mail.subjects();
    h = await startWardenHarness({ egressDial: mail.egressDial, configure: mail.configure });
    ada = api(h.url, await h.addUser("ada"));
    bob = api(h.url, await h.addUser("bob"));
    h.warden.context.secrets.store.set("ada", "MAIL_PASSWORD", servers.password, "ada");
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await servers?.stop();
  });

  it("drafts and asks to send; the mail leaves only when the person confirms it", async () => {
    h.model.enqueue(
      reply.toolCalls([
        {
          name: "mail_draft",
          arguments: { to: [servers.user], subject: "Dinner plans", text: "Thursday at eight?" },
        },
      ]),
      reply.toolCalls([{ name: "mail_send", arguments: { draft_uid: 1 } }]),
      reply.text("I drafted it and asked to send it; please confirm in IronClaw."),
    );
    const response = await ada("POST", "/api/chat", {
      text: "mail myself about dinner on Thursday at eight",
    });
    expect(response.status).toBe(200);
    const tools = (h.model.chatRequests()[0]?.tools ?? []) as Array<{ function?: { name?: string } }>;
    expect(tools.map((t) => t.function?.name)).toEqual(
      expect.arrayContaining(["mail_search", "mail_read", "mail_draft", "mail_send"]),
    );
    const last = h.model.chatRequests().at(-1)?.messages ?? [];
    const toolText = last.filter((m) => m.role === "tool").map((m) => String(m.content ?? ""));
    expect(toolText.join("\n")).toContain("Not sent yet");
    expect(JSON.stringify(h.model.chatRequests())).not.toContain(servers.password);

    const pending = (await (await ada("GET", "/api/integrations/mail/sends")).json()) as {
      data: { mail: string; sends: Array<{ id: string; to: string[]; subject: string; text: string }> };
    };
    expect(pending.data.mail).toBe("ready");
    expect(pending.data.sends).toHaveLength(1);
    const [send] = pending.data.sends;
    expect(send).toMatchObject({ to: [servers.user], subject: "Dinner plans" });
    expect(send?.text.trim()).toBe("Thursday at eight?");
    expect(await inboxSubjects()).not.toContain("Dinner plans");

    // Nobody else sees or confirms it; a malformed id is named.
    const others = (await (await bob("GET", "/api/integrations/mail/sends")).json()) as {
      data: { mail: string; sends: unknown[] };
    };
    expect(others.data).toEqual({ mail: "needs_password", sends: [] });
    expect((await bob("POST", `/api/integrations/mail/sends/${send?.id}/confirm`)).status).toBe(404);
    const bad = await ada("POST", "/api/integrations/mail/sends/nope/confirm");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("id");

    const confirmed = await ada("POST", `/api/integrations/mail/sends/${send?.id}/confirm`);
    expect(confirmed.status).toBe(200);
    for (let i = 0; i < 100 && !(await inboxSubjects()).includes("Dinner plans"); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await inboxSubjects()).toContain("Dinner plans");
    expect((await ada("POST", `/api/integrations/mail/sends/${send?.id}/confirm`)).status).toBe(404);

    const audit = h.warden.context.audit
      .list({ userId: "ada" })
      .filter((e) => e.action === "integration.mail");
    expect(audit.map((e) => e.detail?.action)).toEqual(expect.arrayContaining(["draft", "send"]));
    const confirmations = h.warden.context.audit
      .list({ userId: "ada" })
      .filter((e) => e.action === "integration.mail.confirm");
    // Newest first: the repeated confirmation found nothing to send.
    expect(confirmations.map((e) => e.detail)).toEqual([
      { pending: send?.id, sent: false, code: "not_found" },
      { pending: send?.id, sent: true, recipients: 1 },
    ]);
    expect(JSON.stringify(audit)).not.toContain(servers.password);
  });
});
