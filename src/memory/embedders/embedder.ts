// Vector math lives in core: remote embedders (providers) normalise too, and providers may not import memory.
export { dotProduct, normaliseVector } from "../../core/index.js";

/**
 * Turns texts into unit-length vectors of one embedding space. `id` + `model` + `dimensions` name that space:
 * the index stores them and re-embeds everything when they change, because vectors of two spaces cannot be
 * compared.
 */
export interface Embedder {
  /** The implementation and, for remote embedders, the endpoint: `builtin`, `openai-compatible@host`. */
  readonly id: string;
  readonly model: string;
  readonly dimensions: number;
  /** One vector per text, in order. Rejects (never returns partial results) when any text fails. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** The identity of an embedding space, as stored in the index meta table. */
export function embedderKey(embedder: Pick<Embedder, "id" | "model" | "dimensions">): string {
  return `${embedder.id}/${embedder.model}/${embedder.dimensions}`;
}

/**
 * The space an embedderKey names. Ids have no slash (`builtin`, `openai-compatible@host`); a model may
 * (`BAAI/bge-small-en`), so the id ends at the first slash and the dimensions follow the last.
 */
export function parseEmbedderKey(key: string): Pick<Embedder, "id" | "model" | "dimensions"> | undefined {
  const first = key.indexOf("/");
  const last = key.lastIndexOf("/");
  const dimensions = Number(key.slice(last + 1));
  if (first <= 0 || last <= first || !Number.isInteger(dimensions) || dimensions <= 0) return undefined;
  return { id: key.slice(0, first), model: key.slice(first + 1, last), dimensions };
}
