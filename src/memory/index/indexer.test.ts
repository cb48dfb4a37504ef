import { symlink, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CountingEmbedder,
  countRows,
  loadTestEmbedder,
  makeTempBrain,
  openInspector,
  type TempBrain,
} from "../../../test/support/memory-fixtures.js";
import type { BuiltinEmbedder } from "../embedders/builtin-embedder.js";
import type { Embedder } from "../embedders/embedder.js";
import { HybridSearch } from "../search/hybrid-search.js";
import { vectorFromBlob } from "../vector/vector-blob.js";
import { IndexStore } from "./index-store.js";
import { Indexer } from "./indexer.js";

let base: BuiltinEmbedder;
beforeAll(async () => {
  base = await loadTestEmbedder();
});

const garden =
  "# Garden\n\n## Tomatoes\n\nWater deeply.\n\n## Herbs\n\nBasil hates cold.\n\n## Compost\n\nTurn monthly.\n";
const car = "# Car\n\n## Brakes\n\nPads replaced at 80,000 km.\n\n## Tyres\n\nRotate every spring.\n";

let temp: TempBrain;
let store: IndexStore;
let inspector: ReturnType<typeof openInspector> | undefined;
afterEach(async () => {
  inspector?.close();
  inspector = undefined;
  store?.close();
  await temp?.cleanup();
});

async function setup(files: Record<string, string>) {
  temp = await makeTempBrain(files);
  store = IndexStore.open(temp.brain.databaseFile);
  const embedder = new CountingEmbedder(base);
  return { embedder, indexer: new Indexer(temp.brain, store, embedder) };
}

/** Counts rows through a second connection: what is stored, not what the store under test says it stored. */
function count(sql: string): number {
  inspector ??= openInspector(temp.brain.databaseFile);
  return countRows(inspector, sql);
}

describe("indexer", () => {
  it("indexes every markdown file into chunks, FTS, vectors and file records", async () => {
    const { indexer, embedder } = await setup({
      "garden.md": garden,
      "logs/car.md": car,
      "notes.txt": "ignored",
    });
    const report = await indexer.indexAll();
    expect(report).toMatchObject({ files: 2, updated: 2, chunksAdded: 5, embedded: 5, reembedded: false });
    expect(embedder.texts).toHaveLength(5);
    expect(count("SELECT count(*) AS n FROM chunks")).toBe(5);
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'basil'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM chunk_vectors")).toBe(5);
    // The live vectors are the cache: no second copy of them.
    expect(count("SELECT count(*) AS n FROM embedding_cache")).toBe(0);
    expect(store.fileRecords().map((f) => [f.path, f.chunkCount])).toEqual([
      ["garden.md", 3],
      ["logs/car.md", 2],
    ]);
  });

  it("skips unchanged files without reading them, and touched-but-equal files without re-chunking", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    embedder.reset();
    expect(await indexer.indexAll()).toMatchObject({ unchanged: 1, updated: 0, embedded: 0 });
    await writeFile(join(temp.brain.root, "garden.md"), garden); // new mtime, same bytes
    expect(await indexer.indexAll()).toMatchObject({ unchanged: 1, updated: 0, embedded: 0 });
    expect(embedder.calls).toBe(0);
  });

  it("rewrites only the changed chunks and embeds only the new text", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    const before = new Map(store.chunksOfFile("garden.md").map((c) => [c.id, c.rowid]));
    embedder.reset();
    await temp.write("garden.md", garden.replace("Basil hates cold.", "Basil hates cold and wind."));
    const report = await indexer.indexAll();
    expect(report).toMatchObject({
      updated: 1,
      chunksAdded: 1,
      chunksRemoved: 1,
      chunksMoved: 0,
      embedded: 1,
    });
    expect(embedder.texts).toEqual(["Garden › Herbs\n\n## Herbs\n\nBasil hates cold and wind."]);
    const after = store.chunksOfFile("garden.md");
    const kept = after.filter((c) => before.get(c.id) === c.rowid);
    expect(kept.map((c) => c.headings.at(-1))).toEqual(["Tomatoes", "Compost"]);
  });

  it("moves line ranges of unchanged chunks without rewriting them", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    embedder.reset();
    await temp.write("garden.md", garden.replace("Water deeply.", "Water deeply.\n\nMulch in July."));
    const report = await indexer.indexAll();
    expect(report).toMatchObject({ chunksAdded: 1, chunksRemoved: 1, chunksMoved: 2, embedded: 1 });
    const compost = store.chunksOfFile("garden.md").find((c) => c.headings.at(-1) === "Compost");
    expect(compost?.startLine).toBe(13);
  });

  it("leaves nothing behind for a deleted file", async () => {
    const { indexer } = await setup({ "garden.md": garden, "car.md": car });
    await indexer.indexAll();
    await temp.remove("garden.md");
    expect(await indexer.indexAll()).toMatchObject({ removed: 1, chunksRemoved: 3 });
    expect(count("SELECT count(*) AS n FROM chunks WHERE path = 'garden.md'")).toBe(0);
    expect(
      count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'basil OR compost OR tomatoes'"),
    ).toBe(0);
    expect(count("SELECT count(*) AS n FROM chunk_vectors")).toBe(2);
    expect(count("SELECT count(*) AS n FROM embedding_cache")).toBe(0);
    expect(store.fileRecord("garden.md")).toBeUndefined();
  });

  it("reuses vectors when a file is renamed", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    embedder.reset();
    await temp.write("archive/garden-2024.md", garden);
    await temp.remove("garden.md");
    const report = await indexer.indexAll();
    expect(report).toMatchObject({ chunksAdded: 3, chunksRemoved: 3, embedded: 0, cacheHits: 3 });
    expect(count("SELECT count(*) AS n FROM chunk_vectors")).toBe(3);
  });

  it("re-embeds everything when the embedder changes", async () => {
    const { indexer } = await setup({ "garden.md": garden, "car.md": car });
    await indexer.indexAll();
    const other = new CountingEmbedder(base, { model: "another-model" });
    const report = await new Indexer(temp.brain, store, other).indexAll();
    expect(report).toMatchObject({ reembedded: true, chunksAdded: 5, embedded: 5 });
    expect(other.texts).toHaveLength(5);
    expect(store.indexedEmbedder()?.key).toBe("builtin/another-model/128");
    const search = new HybridSearch(store, new CountingEmbedder(base));
    await expect(search.search("basil")).rejects.toThrow(/run `ironclaw memory index`/);
  });

  it("never shows half a file when a write fails midway, and recovers on the next pass", async () => {
    const { indexer } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    const edited = garden.replace("Water deeply.", "Water daily.").replace("Turn monthly.", "Turn weekly.");
    await temp.write("garden.md", edited);
    // The second inserted chunk of the pass aborts the transaction after the first one was written. The trigger
    // is planted through another connection, so the store's own connection meets it as any writer would.
    inspector ??= openInspector(temp.brain.databaseFile);
    inspector.exec(`CREATE TRIGGER fail_second AFTER INSERT ON chunks
      WHEN (SELECT count(*) FROM chunks WHERE content LIKE '%weekly%') > 0
      BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`);
    await expect(indexer.indexAll()).rejects.toThrow(/disk on fire/);
    const texts = store.chunksOfFile("garden.md").map((c) => c.text);
    expect(texts.join("\n")).toContain("Water deeply.");
    expect(texts.join("\n")).toContain("Turn monthly.");
    expect(texts.join("\n")).not.toContain("Water daily.");
    expect(count("SELECT count(*) AS n FROM chunk_vectors")).toBe(3);
    inspector.exec("DROP TRIGGER fail_second");
    await indexer.indexAll();
    expect(
      store
        .chunksOfFile("garden.md")
        .map((c) => c.text)
        .join("\n"),
    ).toContain("Turn weekly.");
  });

  it("keeps both full-text indexes whole: a pass, edits, a rename, a removal, a failed batch", async () => {
    const { indexer } = await setup({
      "garden.md": garden,
      "logs/car.md": car,
      "jp.md": "# 旅\n\n京都の旅館。\n",
    });
    const whole = () => {
      inspector ??= openInspector(temp.brain.databaseFile);
      // FTS5 compares every entry with the rows it was made from, and fails on any difference.
      inspector.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')");
      inspector.exec("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('integrity-check')");
      expect(count("SELECT count(*) AS n FROM chunks_fts_docsize")).toBe(
        count("SELECT count(*) AS n FROM chunks"),
      );
      expect(count("SELECT count(*) AS n FROM chunks_cjk_docsize")).toBe(
        count("SELECT count(*) AS n FROM chunks WHERE cjk"),
      );
    };
    await indexer.indexAll();
    whole();
    expect(count("SELECT count(*) AS n FROM chunks_cjk WHERE chunks_cjk MATCH '\"京都の\"'")).toBe(1);

    await temp.write("garden.md", garden.replace("Basil hates cold.", "Basil loves sun."));
    await temp.write("jp.md", "# 旅\n\n大阪の宿。\n");
    await temp.remove("logs/car.md");
    await temp.write("logs/car-2.md", car);
    await indexer.indexAll();
    whole();
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'sun'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'hates'")).toBe(0);
    expect(count("SELECT count(*) AS n FROM chunks_cjk WHERE chunks_cjk MATCH '\"京都の\"'")).toBe(0);

    // A batch that fails after some of its chunks were inserted leaves no entry of them behind.
    inspector ??= openInspector(temp.brain.databaseFile);
    inspector.exec(`CREATE TRIGGER fail_pears AFTER INSERT ON chunks WHEN new.content LIKE '%pears%'
      BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`);
    await temp.write("a-first.md", "# Apples\n\nApples in the cellar.\n");
    await temp.write("z-last.md", "# Pears\n\nPears by the window.\n");
    await expect(indexer.indexAll()).rejects.toThrow(/disk on fire/);
    whole();
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'cellar'")).toBe(0);
    inspector.exec("DROP TRIGGER fail_pears");
    // The next pass reuses the rolled-back rowids for other text: a word of the failed batch must not come back.
    await temp.write("a-first.md", "# Apples\n\nApples in the attic.\n");
    await indexer.indexAll();
    whole();
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'cellar'")).toBe(0);
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'attic OR window'")).toBe(2);
  });

  it("keeps completed files when the embedder fails partway through a pass", async () => {
    const { embedder } = await setup({});
    for (let i = 0; i < 6; i++) await temp.write(`notes/${i}.md`, `# Note ${i}\n\nBody ${i}.\n`);
    embedder.failWhen = (t) => t.includes("Body 4");
    const small = new Indexer(temp.brain, store, embedder, { embedBatch: 2 });
    await expect(small.indexAll()).rejects.toThrow(/embedder failed/);
    const indexed = store.fileRecords().map((f) => f.path);
    expect(indexed).toEqual(["notes/0.md", "notes/1.md", "notes/2.md", "notes/3.md"]);
    for (const path of indexed) expect(store.chunksOfFile(path)).toHaveLength(1);
    embedder.failWhen = undefined;
    expect(await small.indexAll()).toMatchObject({ updated: 2, unchanged: 4 });
  });

  it("writes a pass's files in few commits, each file whole, whatever the commit size", async () => {
    const { embedder } = await setup({});
    for (let i = 0; i < 6; i++) await temp.write(`notes/${i}.md`, `# Note ${i}\n\nBody ${i}.\n`);
    const commits: number[] = [];
    const writeBatch = store.writeBatch.bind(store);
    store.writeBatch = (write) => {
      const before = store.fileRecords().length;
      const result = writeBatch(write);
      commits.push(store.fileRecords().length - before);
      return result;
    };
    const report = await new Indexer(temp.brain, store, embedder, { commitBatch: 4 }).indexAll();
    expect(report).toMatchObject({ updated: 6, chunksAdded: 6 });
    // Four one-chunk files fill a commit; the other two make the second.
    expect(commits).toEqual([4, 2]);
    expect(store.fileRecords().map((f) => f.path)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `notes/${i}.md`));
    for (let i = 0; i < 6; i++)
      expect(store.chunksOfFile(`notes/${i}.md`).map((c) => c.text)).toEqual([`# Note ${i}\n\nBody ${i}.`]);
    // The probe works: with the default size the same pass over edited files is one commit.
    for (let i = 0; i < 6; i++) await temp.write(`notes/${i}.md`, `# Note ${i}\n\nBody ${i}, edited.\n`);
    commits.length = 0;
    await new Indexer(temp.brain, store, embedder).indexAll();
    expect(commits).toEqual([0]);
    expect(store.chunksOfFile("notes/5.md").map((c) => c.text)).toEqual(["# Note 5\n\nBody 5, edited."]);
  });

  it("refuses paths that escape the brain and skips symlinks that point out of it", async () => {
    const { indexer } = await setup({ "garden.md": garden });
    await writeFile(join(temp.dir, "secret.md"), "# Secret\n\nlaunch codes\n");
    await symlink(join(temp.dir, "secret.md"), join(temp.brain.root, "leak.md"));
    const report = await indexer.indexAll();
    expect(report.skipped.map((s) => s.path)).toEqual(["leak.md"]);
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'launch'")).toBe(0);
    await expect(indexer.indexPaths(["../secret.md"])).rejects.toThrow(/path/);
    await expect(indexer.indexPaths(["/etc/hosts"])).rejects.toThrow(/absolute/);
  });

  it("indexes and removes single paths on request", async () => {
    const { indexer } = await setup({ "garden.md": garden });
    await temp.write("car.md", car);
    expect(await indexer.indexPaths(["car.md"])).toMatchObject({ chunksAdded: 2 });
    await temp.remove("car.md");
    expect(await indexer.indexPaths(["car.md"])).toMatchObject({ removed: 1, chunksRemoved: 2 });
  });

  it("rebuilds from the markdown using cached vectors", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden });
    await indexer.indexAll();
    embedder.reset();
    const report = await indexer.rebuild();
    expect(report).toMatchObject({ chunksAdded: 3, embedded: 0, cacheHits: 3 });
    // Kept across the rebuild, and gone with the text that used it.
    expect(count("SELECT count(*) AS n FROM embedding_cache")).toBe(3);
    await temp.remove("garden.md");
    await indexer.indexAll();
    expect(count("SELECT count(*) AS n FROM embedding_cache")).toBe(0);
  });

  it("keeps an embedder's vectors when the index switches away, so switching back embeds nothing", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden, "car.md": car });
    await indexer.indexAll();
    const first = await new HybridSearch(store, embedder).search("basil");
    const other = new CountingEmbedder(base, { model: "another-model" });
    await new Indexer(temp.brain, store, other).indexAll();
    expect(count("SELECT count(*) AS n FROM embedding_cache WHERE model != 'another-model'")).toBe(5);
    embedder.reset();
    const back = await indexer.indexAll();
    expect(back).toMatchObject({ reembedded: true, chunksAdded: 5, embedded: 0, cacheHits: 5 });
    expect(embedder.calls).toBe(0);
    // The vectors came back whole: the same search finds the same chunks with the same scores.
    const again = await new HybridSearch(store, embedder).search("basil");
    expect(first.length).toBeGreaterThan(0);
    const seen = (hits: typeof first) => hits.map((r) => [r.path, r.semantic.similarity, r.score]);
    expect(seen(again)).toEqual(seen(first));
  });

  it("keeps the chunk count in step with the chunks: edits, removals, another connection, clearing, an older index", async () => {
    const { indexer, embedder } = await setup({ "garden.md": garden, "logs/car.md": car });
    const stored = () => count("SELECT count(*) AS n FROM chunks");
    await indexer.indexAll();
    expect(store.chunkCount()).toBe(5);
    // A section added and one dropped in one edit; a whole file removed.
    await temp.write(
      "garden.md",
      `${garden.replace("## Herbs\n\nBasil hates cold.\n\n", "")}\n## Bees\n\nHive in May.\n`,
    );
    await temp.remove("logs/car.md");
    await indexer.indexAll();
    expect(stored()).toBe(3);
    expect(store.chunkCount()).toBe(3);
    // Another connection (another process) writes; this one reads the count it left.
    const other = IndexStore.open(temp.brain.databaseFile);
    try {
      await temp.write("logs/car.md", car);
      await new Indexer(temp.brain, other, embedder).indexPaths(["logs/car.md"]);
    } finally {
      other.close();
    }
    expect(stored()).toBe(5);
    expect(store.chunkCount()).toBe(5);
    store.clear();
    expect(store.chunkCount()).toBe(0);
    await indexer.indexAll();
    expect(store.chunkCount()).toBe(5);
    // An index made before the count was kept: no triggers, no row. Opening it counts once, then keeps it.
    inspector?.exec(
      "DROP TRIGGER chunks_count_insert; DROP TRIGGER chunks_count_delete; DELETE FROM meta WHERE key = 'chunk_count'",
    );
    await temp.remove("garden.md");
    await indexer.indexPaths(["garden.md"]);
    expect(stored()).toBe(2);
    store.close();
    store = IndexStore.open(temp.brain.databaseFile);
    expect(store.chunkCount()).toBe(2);
    await temp.write("garden.md", garden);
    await new Indexer(temp.brain, store, embedder).indexAll();
    expect(stored()).toBe(5);
    expect(store.chunkCount()).toBe(5);
  });
});

/** Markdown notes enough to cross the worker's read slices (64 files) and several commits. */
function manyNotes(count: number): Record<string, string> {
  const notes: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    notes[`notes/${String(i).padStart(3, "0")}.md`] =
      `# Note ${i}\n\nWritten on day ${i}.\n\n## Plants\n\nBasil ${i} and tomato ${i % 7}.\n\n## Travel\n\nTrain to city ${i % 11}, ${i} km.\n`;
  return notes;
}

/** Every chunk with its vector, through a second connection, keyed by chunk id. */
function storedChunks(file: string) {
  const db = openInspector(file);
  try {
    const rows = db
      .prepare(
        `SELECT c.id, c.path, c.content, c.start_line, c.end_line, c.embed_hash, v.embedding
           FROM chunks c JOIN chunk_vectors v ON v.rowid = c.rowid ORDER BY c.id`,
      )
      .all() as { embedding: Buffer }[];
    return rows.map((r) => ({ ...r, embedding: [...vectorFromBlob(r.embedding)] }));
  } finally {
    db.close();
  }
}

// The worker reads and embeds while the indexer's thread writes; it needs a second core to start at all.
const twoCores = availableParallelism() >= 2;
if (!twoCores) console.warn("indexer worker tests skipped: this machine has one core, so no worker starts");

describe.skipIf(!twoCores)("indexer with its worker thread", () => {
  it("stores exactly what the single-threaded pass stores, over many files and commits", async () => {
    const notes = manyNotes(150);
    const alone = await makeTempBrain(notes);
    const aloneStore = IndexStore.open(alone.brain.databaseFile);
    try {
      const single = await new Indexer(alone.brain, aloneStore, base, {
        worker: "never",
        commitBatch: 40,
      }).indexAll();
      expect(single.worker).toBe(false);
      temp = await makeTempBrain(notes);
      store = IndexStore.open(temp.brain.databaseFile);
      const progress: string[] = [];
      const threaded = await new Indexer(temp.brain, store, base, {
        worker: "always",
        commitBatch: 40,
      }).indexAll({
        onProgress: (p) => progress.push(p.path ?? ""),
      });
      expect(threaded.worker).toBe(true);
      const { durationMs: _a, worker: _b, ...same } = single;
      expect(threaded).toMatchObject(same);
      expect(threaded).toMatchObject({ updated: 150, chunksAdded: 450, embedded: 450 });
      // Files are written in the order they were listed, whichever thread read them.
      expect(progress).toEqual(Object.keys(notes).sort());
      const expected = storedChunks(alone.brain.databaseFile);
      expect(expected).toHaveLength(450);
      expect(storedChunks(temp.brain.databaseFile)).toEqual(expected);
      expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'basil'")).toBe(150);
    } finally {
      aloneStore.close();
      await alone.cleanup();
    }
  });

  it("skips what the worker refused, and re-reads a touched file without re-embedding it", async () => {
    const { embedder } = await setup({ ...manyNotes(10), "big.md": `# Big\n\n${"word ".repeat(400)}\n` });
    await writeFile(join(temp.dir, "secret.md"), "# Secret\n\nlaunch codes\n");
    await symlink(join(temp.dir, "secret.md"), join(temp.brain.root, "leak.md"));
    const indexer = new Indexer(temp.brain, store, embedder, { worker: "always", maxFileBytes: 1000 });
    const report = await indexer.indexAll();
    expect(report.worker).toBe(true);
    // The link is refused while listing, the large file when the worker reads it.
    expect(report.skipped).toEqual([
      { path: "leak.md", reason: expect.any(String) },
      { path: "big.md", reason: "is larger than 1000 bytes" },
    ]);
    expect(report).toMatchObject({ updated: 10, chunksAdded: 30 });
    expect(count("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'launch'")).toBe(0);
    // A new mtime, the same bytes: the worker sees the hash it was given and sends no chunks.
    await temp.write("notes/003.md", manyNotes(10)["notes/003.md"] as string);
    embedder.reset();
    expect(await indexer.indexAll()).toMatchObject({ updated: 0, unchanged: 10, embedded: 0 });
    expect(embedder.calls).toBe(0);
  });

  it("with another embedder, reads in the worker but embeds here, one batch at a time", async () => {
    const { embedder } = await setup(manyNotes(30));
    let inFlight = 0;
    let most = 0;
    const signals = new Set<AbortSignal | undefined>();
    const pass = new AbortController();
    const oneAtATime: Embedder = {
      id: embedder.id,
      model: embedder.model,
      dimensions: embedder.dimensions,
      async embed(texts, options) {
        signals.add(options?.signal);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        return embedder.embed(texts);
      },
    };
    const report = await new Indexer(temp.brain, store, oneAtATime, {
      worker: "always",
      embedBatch: 8,
      commitBatch: 30,
    }).indexAll({ signal: pass.signal });
    expect(report).toMatchObject({ worker: true, updated: 30, chunksAdded: 90, embedded: 90 });
    // A remote embedder is handed the pass's signal, to cancel its request.
    expect([...signals]).toEqual([pass.signal]);
    expect(embedder.calls).toBeGreaterThanOrEqual(12);
    expect(most).toBe(1);
  });

  it("keeps completed files when another embedder fails partway, with the worker reading", async () => {
    const { embedder } = await setup({});
    for (let i = 0; i < 6; i++) await temp.write(`notes/${i}.md`, `# Note ${i}\n\nBody ${i}.\n`);
    embedder.failWhen = (t) => t.includes("Body 4");
    const indexer = new Indexer(temp.brain, store, embedder, { worker: "always", embedBatch: 2 });
    await expect(indexer.indexAll()).rejects.toThrow(/embedder failed/);
    expect(store.fileRecords().map((f) => f.path)).toEqual([0, 1, 2, 3].map((i) => `notes/${i}.md`));
    embedder.failWhen = undefined;
    expect(await indexer.indexAll()).toMatchObject({ worker: true, updated: 2, unchanged: 4 });
  });

  it("keeps the files written before an abort, stops its worker, and finishes on the next pass", async () => {
    temp = await makeTempBrain(manyNotes(120));
    store = IndexStore.open(temp.brain.databaseFile);
    const indexer = new Indexer(temp.brain, store, base, { worker: "always", commitBatch: 30 });
    const abort = new AbortController();
    const pass = indexer.indexAll({
      signal: abort.signal,
      onProgress: (p) => {
        if (p.done === 10) abort.abort(new Error("stopped by the user"));
      },
    });
    await expect(pass).rejects.toThrow("stopped by the user");
    // Commits are whole: the first one (ten files of three chunks) and perhaps the one being written.
    const written = store.fileRecords().length;
    expect(written % 10).toBe(0);
    expect(written).toBeGreaterThanOrEqual(10);
    expect(written).toBeLessThan(120);
    const rest = await indexer.indexAll();
    expect(rest).toMatchObject({ worker: true, updated: 120 - written, unchanged: written });
    expect(count("SELECT count(*) AS n FROM chunks")).toBe(360);
  });
});
