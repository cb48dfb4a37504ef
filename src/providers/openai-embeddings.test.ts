import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddingTestServer, startEmbeddingServer } from "../../test/support/embedding-server.js";
import { InvalidInputError } from "../core/index.js";
import { EmbeddingRequestError, OpenAiEmbedder } from "./openai-embeddings.js";

let server: EmbeddingTestServer;
beforeEach(async () => {
  server = await startEmbeddingServer({ dims: 16, apiKey: "sk-test" });
});
afterEach(() => server.close());

const create = (extra: Partial<Parameters<typeof OpenAiEmbedder.create>[0]> = {}) =>
  OpenAiEmbedder.create({
    baseUrl: server.baseUrl,
    model: "text-embed-test",
    apiKey: "sk-test",
    retryBaseMs: 5,
    ...extra,
  });

describe("OpenAI-compatible embedder", () => {
  it("probes the dimension once and sends the key as a bearer token", async () => {
    const embedder = await create();
    expect(embedder.dimensions).toBe(16);
    expect(embedder.id).toBe(`openai-compatible@${new URL(server.baseUrl).host}`);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]?.model).toBe("text-embed-test");
  });

  it("splits large inputs into batches and keeps the order", async () => {
    const embedder = await create({ dimensions: 16, batchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((r) => r.inputs.length)).toEqual([4, 4, 2]);
    const [again] = await embedder.embed(["text number 7"]);
    expect(Array.from(vectors[7] as Float32Array)).toEqual(Array.from(again as Float32Array));
  });

  it("retries 429 and 5xx responses with backoff, honouring Retry-After", async () => {
    const embedder = await create({ dimensions: 16 });
    server.failures.push({ status: 429, retryAfter: "0" }, { status: 503 }, { status: 500 });
    const vectors = await embedder.embed(["hello"]);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(4);
  });

  it("gives up after maxRetries with the status and the server's message", async () => {
    const embedder = await create({ dimensions: 16, maxRetries: 2 });
    server.failures.push(
      ...Array.from({ length: 5 }, () => ({ status: 502, body: '{"error":{"message":"upstream down"}}' })),
    );
    const error = await embedder.embed(["hello"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingRequestError);
    expect((error as EmbeddingRequestError).status).toBe(502);
    expect((error as EmbeddingRequestError).attempts).toBe(3);
    expect((error as Error).message).toContain("upstream down");
  });

  it("does not retry an authentication failure and says what to check", async () => {
    const error = await create({ apiKey: "wrong", dimensions: 16 })
      .then((e) => e.embed(["hello"]))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingRequestError);
    expect((error as Error).message).toMatch(/HTTP 401.*API key.*invalid api key/);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses malformed bodies, wrong counts and wrong dimensions", async () => {
    const embedder = await create({ dimensions: 16 });
    server.nextBody = "not json";
    await expect(embedder.embed(["a"])).rejects.toThrow(/not JSON/);
    server.nextBody = JSON.stringify({ data: [{ index: 0, embedding: "nope" }] });
    await expect(embedder.embed(["a"])).rejects.toThrow(/\$\.data\[0\]\.embedding/);
    server.nextBody = JSON.stringify({ data: [] });
    await expect(embedder.embed(["a"])).rejects.toThrow(/asked for 1 embeddings, got 0/);
    const wrongSize = await create({ dimensions: 8 });
    await expect(wrongSize.embed(["a"])).rejects.toThrow(/returned 16 dimensions, expected 8/);
  });

  it("reports an unreachable endpoint after retrying", async () => {
    const url = server.baseUrl;
    await server.close();
    const embedder = await OpenAiEmbedder.create({
      baseUrl: url,
      model: "m",
      dimensions: 4,
      maxRetries: 1,
      retryBaseMs: 1,
    });
    await expect(embedder.embed(["a"])).rejects.toThrow(/request failed.*after 2 attempts/);
    server = await startEmbeddingServer();
  });

  it("stops waiting when aborted", async () => {
    const embedder = await create({ dimensions: 16, retryBaseMs: 10_000 });
    server.failures.push({ status: 503 });
    const controller = new AbortController();
    const pending = embedder.embed(["a"], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
  });

  it("refuses bad settings by field name", async () => {
    await expect(OpenAiEmbedder.create({ baseUrl: "ftp://x", model: "m" })).rejects.toThrow(
      InvalidInputError,
    );
    await expect(OpenAiEmbedder.create({ baseUrl: "not a url", model: "m" })).rejects.toThrow(/baseUrl/);
    await expect(create({ batchSize: 0 })).rejects.toThrow(/batchSize/);
  });
});
