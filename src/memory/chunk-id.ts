import { canonicalJson, sha256Hex } from "../core/index.js";

/**
 * A chunk's id from (path, heading trail, ordinal, content hash), seed 003 §6.4. `ordinal` counts chunks with
 * the same trail in the file (parts of a split section, repeated headings), never the position in the file, so
 * editing one section leaves the ids of every other section unchanged. 128 bits of sha256 in hex.
 */
export function chunkId(
  path: string,
  headings: readonly string[],
  ordinal: number,
  contentHash: string,
): string {
  return sha256Hex(canonicalJson({ path, headings, ordinal, content: contentHash })).slice(0, 32);
}

/** The content hash stored with a chunk and used as the embedding cache key. */
export function contentHash(text: string): string {
  return sha256Hex(text);
}
