import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

async function post(body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe("the test model server", () => {
  it("answers scripted replies in order and records each request", async () => {
    server.enqueue(reply.text("one", { chunks: 1 }), reply.status(503, "busy", { "retry-after": "2" }));
    const first = await post({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(first.status).toBe(200);
    expect(first.text).toContain('"content":"one"');
    expect(first.text.trim().endsWith("data: [DONE]")).toBe(true);
    const second = await post({ model: "m", messages: [] });
    expect(second).toEqual({ status: 503, text: JSON.stringify({ error: { message: "busy", code: 503 } }) });
    expect(server.chatRequests().map((r) => r.model)).toEqual(["m", "m"]);
  });

  it("splits tool-call arguments into the asked number of pieces", async () => {
    server.enqueue(reply.toolCalls([{ name: "f", arguments: "abcdefgh" }], { split: 4 }));
    const { text } = await post({ model: "m", messages: [] });
    const pieces = [...text.matchAll(/"arguments":"([^"]+)"/g)].map((m) => m[1]);
    expect(pieces).toEqual(["ab", "cd", "ef", "gh"]);
  });

  it("fails loudly when a test forgot to script a reply, and falls back to a responder", async () => {
    expect((await post({ model: "m", messages: [] })).status).toBe(500);
    server.respondWith(() => reply.text("always", { chunks: 1 }));
    expect((await post({ model: "m", messages: [] })).text).toContain("always");
  });

  it("serves deterministic embeddings", async () => {
    const embed = async () =>
      (
        await fetch(`${server.url}/embeddings`, {
          method: "POST",
          body: JSON.stringify({ input: ["a", "b"] }),
        })
      ).json() as Promise<{ data: unknown[] }>;
    const [x, y] = [await embed(), await embed()];
    expect(x).toEqual(y);
    expect(x.data).toHaveLength(2);
  });
});
