import { sha256Hex } from "../core/index.js";
import { BrainFileRefusal, readBrainFile } from "./brain-file-access.js";
import type { BrainFile } from "./brain-files.js";
import { type Chunk, chunkMarkdown } from "./chunker.js";
import { embeddingInput } from "./stored-chunk.js";

/** A chunk as an indexing pass plans it: the embedder's input and its hash (the embedding cache's key). */
export interface ReadChunk extends Chunk {
  embedHash: string;
  input: string;
}

/** A file the pass should read, with the content hash the index has for it (same chunk size), if any. */
export interface FileToRead extends BrainFile {
  indexedHash?: string;
}

/**
 * One file as read for an indexing pass. `mtimeMs` and `size` describe the descriptor it was read from, not
 * the earlier listing. `same`: its content is what the index already has, so it was not chunked.
 */
export type FileRead =
  | { kind: "chunked"; path: string; hash: string; mtimeMs: number; size: number; chunks: ReadChunk[] }
  | { kind: "same"; path: string; hash: string; mtimeMs: number; size: number }
  | { kind: "gone"; path: string }
  | { kind: "refused"; path: string; rule: string };

export interface ReadLimits {
  /** Largest file read; a larger one is refused. */
  maxFileBytes: number;
  /** The chunker's upper bound on a chunk's UTF-8 size. */
  maxBytes: number;
}

/**
 * Reads, hashes and chunks one brain file. Touches no database, so it runs the same on the indexer's thread and
 * in its worker (index-worker.ts). A file that vanished or was refused since it was listed (a guest may swap it
 * for a link at any moment) is reported as such; any other error is thrown.
 */
export function readFileForIndex(root: string, file: FileToRead, limits: ReadLimits): FileRead {
  let read: ReturnType<typeof readBrainFile>;
  try {
    read = readBrainFile(root, file.path, limits.maxFileBytes);
  } catch (error) {
    if (!(error instanceof BrainFileRefusal)) throw error;
    return { kind: "refused", path: file.path, rule: error.rule };
  }
  if (!read) return { kind: "gone", path: file.path };
  const described = { path: file.path, mtimeMs: Math.trunc(read.info.mtimeMs), size: read.info.size };
  const text = read.bytes.toString("utf8");
  const hash = sha256Hex(text);
  if (hash === file.indexedHash) return { kind: "same", hash, ...described };
  const chunks = chunkMarkdown(file.path, text, { maxBytes: limits.maxBytes }).map((c) => {
    const input = embeddingInput(c.headings, c.text);
    return { ...c, embedHash: sha256Hex(input), input };
  });
  return { kind: "chunked", hash, ...described, chunks };
}
