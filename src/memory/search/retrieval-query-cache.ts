import type { Embedder } from "../embedders/embedder.js";

/**
 * Query vectors of recent searches, least recently used out first. An agent recalls with the same words again
 * and again (the prompt's recall, then the tool's), and a remote embedder costs a round trip per query; the
 * key holds the embedding space (id, model, dimensions), so a switched embedder never gets a stale vector.
 */
export class QueryVectorCache {
  private readonly entries = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity = 256) {}

  async vectorOf(embedder: Embedder, text: string, signal?: AbortSignal): Promise<Float32Array> {
    const key = `${embedder.id}\u0000${embedder.model}\u0000${embedder.dimensions}\u0000${text}`;
    const cached = this.entries.get(key);
    if (cached) {
      this.hits++;
      // Re-inserting moves the key to the end of the Map's order: the front is always the least recent.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    this.misses++;
    const [vector] = await embedder.embed([text], signal ? { signal } : {});
    if (!vector) throw new Error(`embedder ${embedder.id} returned no vector for the query`);
    if (this.capacity > 0) {
      this.entries.set(key, vector);
      if (this.entries.size > this.capacity) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
    }
    return vector;
  }

  get size(): number {
    return this.entries.size;
  }
}
