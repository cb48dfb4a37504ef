import type { Chunk } from "./chunker.js";
/** A chunk as stored in the index, with its rowid (the key shared by the FTS and vector tables). */
export interface StoredChunk extends Chunk {
  rowid: number;
  embedHash: string;
}

/** A row of the chunks table as SQLite returns it. */
export interface ChunkRow {
  rowid: number;
  id: string;
  path: string;
  headings: string;
  heading_text: string;
  ordinal: number;
  start_line: number;
  end_line: number;
  content: string;
  content_hash: string;
  embed_hash: string;
}

export function storedChunk(row: ChunkRow): StoredChunk {
  return {
    rowid: row.rowid,
    id: row.id,
    path: row.path,
    headings: JSON.parse(row.headings) as string[],
    ordinal: row.ordinal,
    startLine: row.start_line,
    endLine: row.end_line,
    text: row.content,
    contentHash: row.content_hash,
    embedHash: row.embed_hash,
  };
}

/**
 * The text given to the embedder for a chunk: its heading trail, then its markdown. Headings carry much of a
 * section's meaning ("## Allergies" above "- penicillin"), so they are embedded with it.
 */
export function embeddingInput(headings: readonly string[], text: string): string {
  return headings.length === 0 ? text : `${headings.join(" › ")}\n\n${text}`;
}
