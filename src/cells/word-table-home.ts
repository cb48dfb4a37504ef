import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { buildWordTableFile, wordTableFile } from "../memory/index.js";

const prepared = new Map<string, Promise<{ dir: string } | { unavailable: string }>>();

/**
 * The host directory (`<home>/embeddings`) that holds the built-in embedder's word table, converted once from
 * the installed wink package when it is missing, for cells to bind read-only. A brain with `embedder =
 * "local"` otherwise converts the 300 MB package JSON inside each new cell, at every cold start, into its own
 * tmpfs. Memoised per home: the conversion runs once per warden, the file once per host.
 */
export function prepareWordTableDir(home: string): Promise<{ dir: string } | { unavailable: string }> {
  let pending = prepared.get(home);
  if (!pending) {
    pending = prepare(home);
    prepared.set(home, pending);
  }
  return pending;
}

async function prepare(home: string): Promise<{ dir: string } | { unavailable: string }> {
  const file = wordTableFile(home);
  if (!existsSync(file)) {
    try {
      await buildWordTableFile(file);
    } catch (error) {
      return { unavailable: (error as Error).message };
    }
  }
  return { dir: dirname(file) };
}
