import { readFile, writeFile } from "node:fs/promises";
import { dotProduct, type Embedder, type IndexStore } from "../../src/memory/index.js";

export interface VectorMatrix {
  rowids: number[];
  data: Float32Array;
  dims: number;
}

/** Every chunk vector in one Float32Array, as a brute-force baseline holds them in memory. */
export function loadMatrix(store: IndexStore, embedder: Embedder): VectorMatrix {
  const rows = store.db
    .prepare(
      "SELECT c.rowid AS rowid, e.vector AS vector FROM chunks c JOIN embedding_cache e " +
        "ON e.content_hash = c.embed_hash AND e.embedder = ? AND e.model = ?",
    )
    .all(embedder.id, embedder.model) as Array<{ rowid: number; vector: Buffer }>;
  const dims = embedder.dimensions;
  const data = new Float32Array(rows.length * dims);
  for (const [i, r] of rows.entries()) {
    const bytes = new Uint8Array(data.buffer, i * dims * 4, dims * 4);
    bytes.set(r.vector.subarray(0, dims * 4));
  }
  return { rowids: rows.map((r) => r.rowid), data, dims };
}

/** The exact top k by cosine: a full scan with a small sorted buffer. */
export function topByScan(matrix: VectorMatrix, query: Float32Array, k: number): number[] {
  const { data, dims, rowids } = matrix;
  const best: Array<[number, number]> = [];
  for (let i = 0; i < rowids.length; i++) {
    const score = dotProduct(query, data.subarray(i * dims, (i + 1) * dims));
    if (best.length < k || score > (best[best.length - 1] as [number, number])[1]) {
      best.push([rowids[i] as number, score]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([rowid]) => rowid);
}

/** `path#last heading` of every chunk, by rowid, to judge hits of any leg against the corpus topics. */
export function chunkKeys(store: IndexStore): Map<number, string> {
  const rows = store.db.prepare("SELECT rowid, path, headings FROM chunks").all() as Array<{
    rowid: number;
    path: string;
    headings: string;
  }>;
  return new Map(rows.map((r) => [r.rowid, `${r.path}#${(JSON.parse(r.headings) as string[]).at(-1)}`]));
}

/** Appends a word to the fourth section of a generated file: exactly one chunk changes. */
export async function editOneSection(file: string, stamp: number): Promise<void> {
  const text = await readFile(file, "utf8");
  const sections = text.split("\n## ");
  sections[3] = (sections[3] as string).replace(/\.\n/, ` edited${stamp}.\n`);
  await writeFile(file, sections.join("\n## "));
}
