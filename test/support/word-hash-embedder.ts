import { createHash } from "node:crypto";
import type { Embedder } from "../../src/memory/index.js";

/**
 * A tiny deterministic embedder for tests: each word hashes to one of 64 dimensions, so texts that share words
 * are similar. It needs no word table and no network.
 */
export class WordHashEmbedder implements Embedder {
  readonly id = "test-word-hash";
  readonly model = "v1";
  readonly dimensions = 64;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const v = new Float32Array(this.dimensions);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const digest = createHash("sha1").update(word).digest();
        const i = (digest[0] ?? 0) % this.dimensions;
        v[i] = (v[i] ?? 0) + 1;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }
}
