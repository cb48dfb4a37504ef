import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, reply, startModelServer } from "../../test/support/model-server.js";
import { createProviderRegistry, OPENROUTER_BASE_URL, UnknownProviderError } from "./provider-registry.js";
import type { StreamEvent } from "./stream-event.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

async function lastEvent(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent | undefined> {
  let e: StreamEvent | undefined;
  for await (e of stream);
  return e;
}

describe("the provider registry", () => {
  it("always offers OpenRouter at its public base URL, keyed from OPENROUTER_API_KEY", async () => {
    const registry = createProviderRegistry({}, {});
    expect(registry.get("openrouter").baseUrl).toBe(OPENROUTER_BASE_URL);
    const e = await lastEvent(registry.get("openrouter").stream({ model: "x", messages: [] }));
    expect(e?.type === "error" && e.error.code).toBe("missing_key");
    expect(e?.type === "error" && e.error.message).toContain("OPENROUTER_API_KEY");
  });

  it("builds configured providers by name and sends their key from the named variable", async () => {
    server.enqueue(reply.text("hi"));
    const registry = createProviderRegistry(
      { local: { base_url: server.url, api_key_env: "LOCAL_KEY" } },
      { LOCAL_KEY: "k1" },
    );
    expect(registry.names()).toEqual(["local", "openrouter"]);
    expect((await lastEvent(registry.get("local").stream({ model: "m", messages: [] })))?.type).toBe("done");
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer k1");
  });

  it("refuses a provider nobody configured, listing the known ones", () => {
    const registry = createProviderRegistry({}, {});
    expect(() => registry.get("mystery")).toThrow(UnknownProviderError);
    expect(() => registry.get("mystery")).toThrow(/known: openrouter/);
  });
});
