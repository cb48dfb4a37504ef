import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddingTestServer, startEmbeddingServer } from "../../../test/support/embedding-server.js";
import { TEST_DATA_DIR } from "../../../test/support/memory-fixtures.js";
import { irowclawConfigSchema } from "../../contracts/index.js";
import { ConfigError } from "../../core/index.js";
import { OpenAiEmbedder } from "../../providers/index.js";
import { BuiltinEmbedder } from "./builtin-embedder.js";
import { createEmbedder } from "./embedder-factory.js";

let server: EmbeddingTestServer;
beforeAll(async () => {
  server = await startEmbeddingServer({ dims: 24, apiKey: "sk-brain" });
});
afterAll(() => server.close());

const config = (indexing: Record<string, unknown>) =>
  irowclawConfigSchema.parse({
    default_agent: "a",
    providers: { local: { base_url: server.baseUrl, api_key_env: "EMBED_KEY" } },
    indexing,
  });

describe("embedder from [indexing]", () => {
  it("uses the built-in embedder for embedder = local", async () => {
    const embedder = await createEmbedder(config({ embedder: "local" }), { dataDir: TEST_DATA_DIR });
    expect(embedder).toBeInstanceOf(BuiltinEmbedder);
  });

  it("uses the provider's endpoint with the key from the named environment variable", async () => {
    const embedder = await createEmbedder(
      config({ embedder: "provider", embedding_provider: "local", embedding_model: "nomic-embed" }),
      { env: { EMBED_KEY: "sk-brain" }, remoteEmbedder: OpenAiEmbedder.create },
    );
    expect(embedder).toBeInstanceOf(OpenAiEmbedder);
    expect(embedder.dimensions).toBe(24);
    expect(server.requests.at(-1)?.authorization).toBe("Bearer sk-brain");
  });

  it("names the config key when the key's environment variable is not set", async () => {
    const error = await createEmbedder(
      config({ embedder: "provider", embedding_provider: "local", embedding_model: "m" }),
      { env: {}, configFile: "/brain/config/irowclaw.toml", remoteEmbedder: OpenAiEmbedder.create },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "/brain/config/irowclaw.toml: providers.local.api_key_env: names EMBED_KEY, which is not set in the environment",
    );
  });

  it("names [indexing] embedder when the program offers no provider embedder", async () => {
    const error = await createEmbedder(
      config({ embedder: "provider", embedding_provider: "local", embedding_model: "m" }),
      { env: { EMBED_KEY: "sk-brain" }, configFile: "/brain/config/irowclaw.toml" },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/indexing\.embedder: "provider" is not available/);
  });
});
