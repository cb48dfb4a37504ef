import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, reply, startModelServer } from "../../test/support/model-server.js";
import { checkModelCall, listModels, probeLocalModelServers } from "./model-probe.js";
import { createOpenAiProvider } from "./openai-chat.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

/** A port nothing listens on: one a server held a moment ago. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("finding a model server and testing it", () => {
  it("lists the models a server offers, and says why when it cannot", async () => {
    expect(await listModels(server.url)).toEqual({ ok: true, models: ["test-model"] });
    const port = await closedPort();
    const down = await listModels(`http://127.0.0.1:${port}/v1`, { timeoutMs: 2000 });
    expect(down).toEqual({ ok: false, reason: expect.stringContaining("cannot be reached") });
  });

  it("finds a server on a usual port and names it", async () => {
    const port = Number(new URL(server.url).port);
    const found = await probeLocalModelServers({
      servers: [
        { name: "vLLM", port },
        { name: "llama.cpp", port: await closedPort() },
      ],
    });
    expect(found).toEqual([{ name: "vLLM", baseUrl: `http://127.0.0.1:${port}/v1`, models: ["test-model"] }]);
  });

  it("makes one real one-token call, and returns the provider's failure when the key is refused", async () => {
    const provider = createOpenAiProvider({
      name: "local",
      baseUrl: server.url,
      apiKey: "k",
      retry: { maxRetries: 0 },
    });
    server.enqueue(reply.text("ready"));
    expect(await checkModelCall(provider, "test-model")).toEqual({ ok: true, reply: "ready" });
    expect(server.chatRequests().at(-1)).toMatchObject({ model: "test-model", max_tokens: 1 });
    server.enqueue(reply.status(401, "invalid api key"));
    const refused = await checkModelCall(provider, "test-model");
    expect(refused).toEqual({ ok: false, failure: expect.objectContaining({ code: "auth_failed" }) });
  });
});
