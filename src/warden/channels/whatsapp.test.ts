import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../core/index.js";
import type { ChannelRouter, InboundMessage } from "./channel.js";
import { SERVICE_WINDOW_MS, WhatsappChannel } from "./whatsapp.js";

const HOUR = 60 * 60 * 1000;

/** A number whose router records what it is handed and whose Cloud API answers as `answer` says. */
function number(
  options: {
    template?: boolean;
    paired?: boolean;
    answer?: (body: Record<string, unknown>) => Response;
  } = {},
) {
  let now = 1_800_000_000_000;
  const received: InboundMessage[] = [];
  const sent: Array<Record<string, unknown>> = [];
  const router = {
    receive: async (m: InboundMessage) => void received.push(m),
    isPaired: () => options.paired ?? true,
  } as unknown as ChannelRouter;
  const channel = new WhatsappChannel({
    bot: "home",
    phoneNumberId: "111",
    token: "wa-unit",
    appSecret: "app-secret",
    verifyToken: "verify-me",
    apiBaseUrl: "http://graph.invalid/v21.0",
    ...(options.template ? { noticeTemplate: { name: "assistant_notice", language: "en_US" } } : {}),
    router,
    logger: createLogger("whatsapp-test", { level: "silent" }),
    now: () => now,
    api: {
      maxRetries: 0,
      fetch: async (_url, init) => {
        const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
        sent.push(body);
        return options.answer?.(body) ?? new Response("{}", { status: 200 });
      },
    },
  });
  const hear = (from: string, id: string) =>
    channel.handle(
      Buffer.from(
        JSON.stringify({
          object: "whatsapp_business_account",
          entry: [
            {
              changes: [
                {
                  value: {
                    metadata: { phone_number_id: "111" },
                    messages: [{ from, id, type: "text", text: { body: "hello" } }],
                  },
                },
              ],
            },
          ],
        }),
      ),
    );
  const advance = (ms: number) => {
    now += ms;
  };
  return { channel, received, sent, hear, advance };
}
const texts = (sent: Array<Record<string, unknown>>) => sent.filter((b) => b.type === "text");
const templates = (sent: Array<Record<string, unknown>>) => sent.filter((b) => b.type === "template");

describe("a WhatsApp number", () => {
  it("checks X-Hub-Signature-256 as the scheme's documented example says", () => {
    // Meta documents the scheme (HMAC-SHA256 of the raw body, keyed with the app secret, as sha256=<hex>) but gives
    // no worked example; GitHub's "Validating webhook deliveries"
    // (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries) gives one for the same header.
    const channel = new WhatsappChannel({
      bot: "home",
      phoneNumberId: "111",
      token: "wa-unit",
      appSecret: "It's a Secret to Everybody",
      verifyToken: "verify-me",
      apiBaseUrl: "http://graph.invalid/v21.0",
      router: { receive: async () => undefined } as unknown as ChannelRouter,
    });
    const documented = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    expect(channel.refusal(documented, Buffer.from("Hello, World!"))).toBeUndefined();
    expect(channel.refusal(documented, Buffer.from("Hello, World?"))).toMatch(/does not match/);
    expect(channel.refusal(documented.toUpperCase(), Buffer.from("Hello, World!"))).toMatch(/does not match/);
    expect(channel.refusal(documented.slice("sha256=".length), Buffer.from("Hello, World!"))).toMatch(
      /does not match/,
    );
  });

  it("takes a notification as Meta's only with the app secret's HMAC of the exact bytes", () => {
    const { channel } = number();
    const body = Buffer.from('{"object":"whatsapp_business_account"}');
    const sign = (b: Buffer) => `sha256=${createHmac("sha256", "app-secret").update(b).digest("hex")}`;
    expect(channel.refusal(sign(body), body)).toBeUndefined();
    expect(channel.refusal(sign(body), Buffer.from(`${body} `))).toMatch(/does not match/);
    expect(channel.refusal(undefined, body)).toMatch(/missing/);
    expect(channel.refusal("sha1=abc", body)).toMatch(/does not match/);
    expect(channel.verification("subscribe", "verify-me", "42")).toBe("42");
    expect(channel.verification("subscribe", "verify-mf", "42")).toBeUndefined();
  });

  it("leaves a message without a phone number unanswered, and still takes the others of the notification", () => {
    const { channel, received, sent } = number();
    // A user Meta names only by a business-scoped id: no `from`, no contact wa_id.
    const counts = channel.handle(
      Buffer.from(
        JSON.stringify({
          object: "whatsapp_business_account",
          entry: [
            {
              changes: [
                {
                  value: {
                    metadata: { phone_number_id: "111" },
                    contacts: [{ user_id: "US.13491208655302741918", profile: { name: "Kai" } }],
                    messages: [
                      {
                        from_user_id: "US.13491208655302741918",
                        id: "wamid.u1",
                        type: "text",
                        text: { body: "hi" },
                      },
                      { from: "49151", id: "wamid.n1", type: "text", text: { body: "hello" } },
                    ],
                  },
                },
              ],
            },
          ],
        }),
      ),
    );
    expect(counts).toEqual({ accepted: 1, ignored: 1 });
    expect(received.map((m) => m.senderId)).toEqual(["49151"]);
    expect(sent.filter((b) => b.status === "read").map((b) => b.message_id)).toEqual(["wamid.n1"]);
  });

  it("says it reads text only to a paired person, and nothing to a stranger's pictures", async () => {
    const image = (paired: boolean) => {
      const { channel, sent } = number({ paired });
      channel.handle(
        Buffer.from(
          JSON.stringify({
            object: "whatsapp_business_account",
            entry: [
              {
                changes: [
                  {
                    value: {
                      metadata: { phone_number_id: "111" },
                      messages: [{ from: "49151", id: "wamid.i1", type: "image", image: { id: "m1" } }],
                    },
                  },
                ],
              },
            ],
          }),
        ),
      );
      return sent;
    };
    const toPaired = image(true);
    const toStranger = image(false);
    await expect.poll(() => texts(toPaired).length).toBe(1);
    expect(texts(toPaired).map((b) => (b.text as { body: string }).body)).toEqual([
      "I can read text messages only; please write what you need.",
    ]);
    expect(texts(toStranger)).toEqual([]);
  });

  it("sends free-form text only within 24 hours of the person's last message, and nothing after without a template", async () => {
    const { channel, sent, hear, advance } = number();
    expect(await channel.send("49151", "a notice before they ever wrote")).toBe(false);
    hear("49151", "wamid.1");
    advance(23 * HOUR);
    expect(await channel.send("49151", "within the window")).toBe(true);
    advance(SERVICE_WINDOW_MS - 23 * HOUR);
    expect(await channel.send("49151", "a day after their message")).toBe(false);
    expect(texts(sent).map((b) => (b.text as { body: string }).body)).toEqual(["within the window"]);
    // Their message was marked read.
    expect(sent.filter((b) => b.status === "read").map((b) => b.message_id)).toEqual(["wamid.1"]);
  });

  it("sends a notice outside the window as the template, also when Meta refuses the text as outside it", async () => {
    let refuse = true;
    const { channel, sent, hear, advance } = number({
      template: true,
      answer: (body) =>
        body.type === "text" && refuse
          ? new Response(JSON.stringify({ error: { message: "Re-engagement message", code: 131047 } }), {
              status: 400,
            })
          : new Response("{}", { status: 200 }),
    });
    hear("49151", "wamid.1");
    // Meta's clock says the window closed although ours does not (a restart, another client on the number).
    expect(await channel.send("49151", "job done")).toBe(true);
    refuse = false;
    advance(SERVICE_WINDOW_MS + HOUR);
    expect(await channel.send("49151", "x".repeat(2000))).toBe(true);
    expect(templates(sent).map((b) => b.template)).toEqual([
      {
        name: "assistant_notice",
        language: { code: "en_US" },
        components: [{ type: "body", parameters: [{ type: "text", text: "job done" }] }],
      },
      {
        name: "assistant_notice",
        language: { code: "en_US" },
        components: [{ type: "body", parameters: [{ type: "text", text: `${"x".repeat(1023)}…` }] }],
      },
    ]);
  });
});
