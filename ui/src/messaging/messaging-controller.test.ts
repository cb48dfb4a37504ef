import { describe, expect, it } from "vitest";
import { createApiClient } from "../api/api-client.js";
import { createMessagingController } from "./messaging-controller.js";

/** A warden that issues codes (or refuses to), answering in its envelope. */
function warden(answer: () => Response) {
  const asked: string[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    asked.push(`${init?.method ?? "GET"} ${String(input)}`);
    return answer();
  }) as typeof fetch;
  return { api: createApiClient(fetcher, "http://warden.test"), asked };
}
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("the messaging screen", () => {
  it("issues a code and shows how to send it on each channel, with when it stops working", async () => {
    const channels = [
      { channel: "telegram:family", how: "Send /pair K7Q2M9XA to the bot in a private chat." },
      { channel: "slack:team", how: "In a direct message with the app, send /ironclaw pair K7Q2M9XA" },
    ];
    const { api, asked } = warden(() =>
      json(
        { ok: true, data: { code: "K7Q2M9XA", expires_in_seconds: 900, bots: ["family"], channels } },
        201,
      ),
    );
    const messaging = createMessagingController(api, () => 1_000);
    await messaging.issue();
    expect(asked).toEqual(["POST http://warden.test/api/channels/pairing-code"]);
    expect(messaging.state.pairing?.channels).toEqual(channels);
    expect(messaging.state.expiresAt).toBe(1_000 + 900_000);
    expect(messaging.state.message).toBeNull();
  });

  it("says when the warden runs no messaging app, and names the error when it gives no code", async () => {
    const none = warden(() =>
      json({ ok: true, data: { code: "A", expires_in_seconds: 900, bots: [], channels: [] } }),
    );
    const messaging = createMessagingController(none.api);
    await messaging.issue();
    expect(messaging.state.message).toEqual({
      level: "info",
      text: expect.stringMatching(/no messaging app/),
    });

    const failing = warden(() =>
      json({ ok: false, data: null, error: { code: "internal", message: "the host database is busy" } }, 500),
    );
    const refused = createMessagingController(failing.api);
    await refused.issue();
    expect(refused.state).toMatchObject({
      pairing: null,
      busy: false,
      message: { level: "error", text: "No code: the host database is busy" },
    });
  });
});
