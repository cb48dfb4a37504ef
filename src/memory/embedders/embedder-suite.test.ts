import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddingTestServer, startEmbeddingServer } from "../../../test/support/embedding-server.js";
import { loadTestEmbedder } from "../../../test/support/memory-fixtures.js";
import { OpenAiEmbedder } from "../../providers/index.js";
import { dotProduct, type Embedder } from "./embedder.js";

// One suite, run against every embedder: what the index relies on, whatever produces the vectors.
let server: EmbeddingTestServer;
const embedders: Record<string, Embedder> = {};

beforeAll(async () => {
  server = await startEmbeddingServer({ dims: 48 });
  embedders.builtin = await loadTestEmbedder();
  embedders["openai-compatible"] = await OpenAiEmbedder.create({
    baseUrl: server.baseUrl,
    model: "test-embed",
    batchSize: 3,
  });
});
afterAll(() => server.close());

describe.each(["builtin", "openai-compatible"])("%s embedder", (name) => {
  const embedder = () => embedders[name] as Embedder;

  it("returns one unit vector of the declared size per text, in order", async () => {
    const texts = ["first text", "second, longer text about gardens", "third", "fourth one", "fifth"];
    const vectors = await embedder().embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toHaveLength(embedder().dimensions);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(Math.sqrt(dotProduct(v, v))).toBeCloseTo(1, 5);
    }
    const [alone] = await embedder().embed([texts[3] as string]);
    expect(Array.from(alone as Float32Array)).toEqual(Array.from(vectors[3] as Float32Array));
  });

  it("is deterministic and names its embedding space", async () => {
    const [a] = await embedder().embed(["the same words"]);
    const [b] = await embedder().embed(["the same words"]);
    expect(Array.from(a as Float32Array)).toEqual(Array.from(b as Float32Array));
    expect(embedder().id).not.toBe("");
    expect(embedder().model).not.toBe("");
  });

  it("handles no texts, empty text, punctuation and non-Latin scripts", async () => {
    expect(await embedder().embed([])).toEqual([]);
    const vectors = await embedder().embed(["", "?!…", "東京の天気", "🙂"]);
    for (const v of vectors) expect(Math.sqrt(dotProduct(v, v))).toBeCloseTo(1, 5);
  });

  it("puts texts sharing their words closer than unrelated ones", async () => {
    const [a, b, c] = await embedder().embed([
      "garden tomatoes watering schedule",
      "watering schedule for the garden tomatoes",
      "quarterly tax invoice deadline",
    ]);
    expect(dotProduct(a as Float32Array, b as Float32Array)).toBeGreaterThan(
      dotProduct(a as Float32Array, c as Float32Array),
    );
  });
});
