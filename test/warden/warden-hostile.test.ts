import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/channel/index.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A compromised agent: the cell runs the shell test handler, whose `!raw <base64>` writes any bytes to the
// channel, so the cell can send the warden frames the agent runtime never would. (A provider the host does not
// offer is refused in warden-chat.test.ts; private addresses in warden-egress.test.ts.)
let h: WardenHarness;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  h = await startWardenHarness({ handler: "shell" });
  call = api(h.url, await h.addUser("mallory"));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const frame = (message: Record<string, unknown>) =>
  encodeFrame({
    user_id: "mallory",
    session_id: "x",
    msg_id: 1_000_000 + Math.floor(Math.random() * 1e6),
    timestamp: new Date().toISOString(),
    ...message,
  });
const send = async (message: Record<string, unknown>) => {
  const answer = (await (
    await call("POST", "/api/chat", { text: `!raw ${frame(message).toString("base64")}` })
  ).json()) as {
    data: { text: string };
  };
  expect(answer.data.text).toBe("raw bytes written");
};
const audited = async (action: string, count: number) => {
  for (let i = 0; i < 200; i++) {
    const rows = h.warden.context.audit.list({ userId: "mallory", action });
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return h.warden.context.audit.list({ userId: "mallory", action });
};

describe("a cell that tries to steer the warden's proxies", () => {
  it("cannot name a base URL or a host environment variable in a model call: refused, audited, nothing sent", async () => {
    await send({
      type: "ModelRequest",
      provider: "local",
      model: "test-model",
      messages: [{ role: "user", content: "hi" }],
      base_url: "http://evil.example/v1",
      api_key_env: "TEST_MODEL_KEY",
    });
    const rows = await audited("protocol.refused", 1);
    expect(rows[0]?.detail).toMatchObject({ code: "invalid_message" });
    expect(String(rows[0]?.detail.reason)).toMatch(/base_url|api_key_env|unrecognized/i);
    expect(h.model.chatRequests()).toHaveLength(0);
  }, 60_000);

  it("keeps serving the user afterwards", async () => {
    const answer = (await (await call("POST", "/api/chat", { text: "echo still here" })).json()) as {
      data: { text: string };
    };
    expect(answer.data.text).toContain("still here");
  }, 60_000);
});
