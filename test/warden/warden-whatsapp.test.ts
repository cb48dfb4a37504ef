import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";
import {
  startWhatsappServer,
  WHATSAPP_VERIFY_TOKEN,
  type WhatsappServer,
  whatsappImage,
  whatsappIntegration,
  whatsappSignature,
  whatsappStatus,
  whatsappText,
} from "../support/whatsapp-server.js";

let h: WardenHarness;
let wa: WhatsappServer;
let call: ReturnType<typeof api>;
let ids = 0;

const ERIN = "4915112345678";
const notify = (body: string, headers: Record<string, string> = whatsappSignature(body)) =>
  fetch(`${h.url}/channels/whatsapp/home`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
const text = (body: string, from = ERIN) => whatsappText(from, body, `wamid.in${++ids}`);

beforeAll(async () => {
  wa = await startWhatsappServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    // The smallest message limit the config takes, so an oversize message is one WhatsApp itself would carry.
    configure: (config) => ({
      ...config,
      integrations: whatsappIntegration(wa),
      limits: { ...config.limits, max_message_bytes: 1024 },
    }),
  });
  call = api(h.url, await h.addUser("erin"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await wa?.close();
});

describe("the WhatsApp channel through the warden", () => {
  it("answers Meta's subscription check with its challenge only for the right verify token", async () => {
    const check = (token: string, mode = "subscribe") =>
      fetch(
        `${h.url}/channels/whatsapp/home?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`,
      );
    const right = await check(WHATSAPP_VERIFY_TOKEN);
    expect([right.status, await right.text()]).toEqual([200, "1158201444"]);
    expect((await check("guess")).status).toBe(403);
    expect((await check(WHATSAPP_VERIFY_TOKEN, "unsubscribe")).status).toBe(403);
  });

  // Meta signs no timestamp (X-Hub-Signature-256 covers the body only): a replay is caught by the message id below.
  it("refuses unsigned and badly signed notifications (401) and never runs a turn", async () => {
    const before = h.model.chatRequests().length;
    const body = text("hello");
    for (const headers of [{}, whatsappSignature(body, "another-secret"), whatsappSignature(`${body} `)]) {
      const answer = await notify(body, headers);
      expect(answer.status).toBe(401);
    }
    expect(h.model.chatRequests().length).toBe(before);
    expect(wa.calls).toEqual([]);
  });

  it("pairs by /pair <code>, then answers the person's texts from their own agent and marks them read", async () => {
    expect((await notify(text("hi, who are you?", "4915100000000"))).status).toBe(200);
    await wa.waitFor("texts", 1);
    expect(wa.texts()[0]).toMatchObject({
      to: "4915100000000",
      text: expect.stringMatching(/\/pair <code>/),
    });

    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string; channels: Array<{ channel: string; how: string }> };
    };
    expect(pairing.data.channels).toContainEqual({
      channel: "whatsapp:home",
      how: expect.stringContaining(`Send /pair ${pairing.data.code}`),
    });
    expect((await notify(text(`/pair ${pairing.data.code}`))).status).toBe(200);
    await wa.waitFor("texts", 2);
    expect(wa.texts()[1]).toMatchObject({ to: ERIN, text: expect.stringMatching(/^Paired/) });

    h.model.enqueue(reply.text("Your dentist is at 10."));
    const body = text("when is the dentist?");
    const answer = await notify(body);
    expect(await answer.json()).toMatchObject({ ok: true, data: { accepted: 1, ignored: 0 } });
    await wa.waitFor("texts", 3, 30_000);
    expect(wa.texts()[2]).toEqual({ to: ERIN, text: "Your dentist is at 10." });
    expect(wa.reads()).toContain(`wamid.in${ids}`);
    const sessions = (await (await call("GET", "/api/sessions")).json()) as {
      data: Array<{ channel: string; title: string }>;
    };
    expect(sessions.data[0]).toMatchObject({ channel: "whatsapp:home", title: "when is the dentist?" });

    // Meta redelivers: the same message id is not a second turn.
    const asked = h.model.chatRequests().length;
    expect(await (await notify(body)).json()).toMatchObject({ ok: true, data: { accepted: 0, ignored: 1 } });
    h.model.enqueue(reply.text("Noted."));
    expect((await notify(text("thanks"))).status).toBe(200);
    await wa.waitFor("texts", 4, 30_000);
    expect(h.model.chatRequests().length).toBe(asked + 1);
    expect(wa.texts()[3]).toEqual({ to: ERIN, text: "Noted." });
    // The stranger was told once how to pair, and nothing else.
    expect(wa.texts().filter((t) => t.to === "4915100000000")).toHaveLength(1);
  }, 60_000);

  it("answers a message over [limits] max_message_bytes with why, and runs no turn", async () => {
    const texts = wa.texts().length;
    const asked = h.model.chatRequests().length;
    const answer = await notify(text("a long paste: ".padEnd(1500, "x")));
    expect(await answer.json()).toMatchObject({ ok: true, data: { accepted: 1, ignored: 0 } });
    await wa.waitFor("texts", texts + 1, 30_000);
    expect(wa.texts()[texts]).toEqual({
      to: ERIN,
      text: expect.stringMatching(
        /^This message was not sent to your agent: message: a message may be at most 1 KiB \(1024 bytes\)/,
      ),
    });
    expect(h.model.chatRequests().length).toBe(asked);
  }, 60_000);

  it("says it reads text only, and leaves another number's messages alone", async () => {
    const texts = wa.texts().length;
    const imageBody = whatsappImage(ERIN, `wamid.in${++ids}`);
    expect(await (await notify(imageBody)).json()).toMatchObject({
      ok: true,
      data: { accepted: 0, ignored: 1 },
    });
    await wa.waitFor("texts", texts + 1);
    expect(wa.texts()[texts]).toEqual({ to: ERIN, text: expect.stringMatching(/text messages only/) });

    const other = whatsappText(ERIN, "for the other number", "wamid.other", "999");
    expect(await (await notify(other)).json()).toMatchObject({ ok: true, data: { accepted: 0, ignored: 0 } });
  });

  it("takes the delivery statuses of its own messages with 200, as neither turn nor answer", async () => {
    const calls = wa.calls.length;
    const asked = h.model.chatRequests().length;
    for (const status of ["sent", "delivered", "read"] as const) {
      const answer = await notify(whatsappStatus(ERIN, "wamid.out1", status));
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ ok: true, data: { accepted: 0, ignored: 0 } });
    }
    expect(h.model.chatRequests().length).toBe(asked);
    expect(wa.calls.length).toBe(calls);
  });

  it("answers a malformed notification with 400 naming the field, and an unknown number with 404", async () => {
    const bad = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          changes: [
            { value: { metadata: { phone_number_id: "1" }, messages: [{ from: ERIN, type: "text" }] } },
          ],
        },
      ],
    });
    const answer = await notify(bad);
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/messages.*id/);
    const unknown = await fetch(`${h.url}/channels/whatsapp/nobody`, {
      method: "POST",
      headers: { "content-type": "application/json", ...whatsappSignature("{}") },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
  });
});
