import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CountingEmbedder,
  countRows,
  loadTestEmbedder,
  makeTempBrain,
  openInspector,
  type TempBrain,
} from "../../../test/support/memory-fixtures.js";
import type { BuiltinEmbedder } from "../embedders/builtin-embedder.js";
import { IndexStore } from "../index/index-store.js";
import { Indexer } from "../index/indexer.js";
import { HybridSearch } from "./hybrid-search.js";
import { LexicalQuery } from "./retrieval-lexical.js";
import { QueryVectorCache } from "./retrieval-query-cache.js";

// The lexical aids on a real index: files named by the query, CJK text through trigrams, the migration that
// adds both to an existing index, and the query-vector cache.

let temp: TempBrain;
let store: IndexStore;
let embedder: BuiltinEmbedder;
let search: HybridSearch;
const HERONS = "Blue herons stand in the blue heron pond; the blue heron colony counts twelve blue herons.";

beforeAll(async () => {
  const files: Record<string, string> = {
    // The file named by the query says nothing of herons; five notes about herons do.
    "projects/blue-heron.md":
      "# Client onboarding\n\n## Scope\n\nRedesign of the sign-up flow for the bank.\n",
    "logs/2025-03-02.md": "# 2025-03-02\n\n## Dentist\n\nCheck-up at nine, nothing to report.\n",
    "learning/japanese.md": "# Japanese\n\n## Travel\n\n京都の旅館に泊まりたいです。駅はどこですか。\n",
  };
  for (let i = 1; i <= 5; i++) files[`birds/herons-${i}.md`] = `# Herons ${i}\n\n## Pond\n\n${HERONS}\n`;
  temp = await makeTempBrain(files);
  store = IndexStore.open(temp.brain.databaseFile);
  embedder = await loadTestEmbedder();
  await new Indexer(temp.brain, store, embedder).indexAll();
  search = new HybridSearch(store, embedder);
});
afterAll(async () => {
  store.close();
  await temp.cleanup();
});

describe("a query naming a file", () => {
  it("finds the file first, by its name or any path-like part of it", async () => {
    // The probe: said in words, the notes about herons win and the named file is not first.
    const words = await search.search("blue heron");
    expect(words[0]?.path).not.toBe("projects/blue-heron.md");
    for (const query of ["what is in blue-heron.md", "open projects/blue-heron", "blue-heron"]) {
      const hits = await search.search(query);
      expect(hits[0]?.path, query).toBe("projects/blue-heron.md");
      expect(hits[0]?.explanation.floor.passed, query).toBe("named");
      expect(hits[0]?.explanation.summary, query).toMatch(/the query names this file/);
    }
  });

  it("finds a day's log by its date", async () => {
    const hits = await search.search("what happened on 2025-03-02?");
    expect(hits[0]?.path).toBe("logs/2025-03-02.md");
  });
});

describe("CJK text", () => {
  it("matches a phrase inside a run of CJK text through trigrams, which unicode61 alone misses", async () => {
    const inspector = openInspector(temp.brain.databaseFile);
    try {
      // The probe: the word index holds the whole run as one token, so the phrase finds nothing there.
      expect(
        countRows(inspector, `SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH '"京都の旅館"'`),
      ).toBe(0);
      // Only chunks with CJK text are in the trigram index.
      expect(countRows(inspector, "SELECT count(*) AS n FROM chunks_cjk_docsize")).toBe(1);
    } finally {
      inspector.close();
    }
    const hits = await search.search("京都の旅館", { mode: "lexical" });
    expect(hits.map((h) => h.path)).toEqual(["learning/japanese.md"]);
    expect(hits[0]?.explanation.coverage).toBeGreaterThan(0.9);
    const hybrid = await search.search("京都の旅館", { minScore: 0.99 });
    expect(hybrid[0]?.explanation.floor.passed).toBe("keyword");
  });

  it("forgets a deleted chunk's trigrams", async () => {
    await temp.write("learning/korean.md", "# Korean\n\n## Phrases\n\n감사합니다 means thank you.\n");
    const indexer = new Indexer(temp.brain, store, embedder);
    await indexer.indexAll();
    expect((await search.search("감사합니다", { mode: "lexical" })).map((h) => h.path)).toEqual([
      "learning/korean.md",
    ]);
    await temp.remove("learning/korean.md");
    await indexer.indexAll();
    expect(await search.search("감사합니다", { mode: "lexical" })).toEqual([]);
    const inspector = openInspector(temp.brain.databaseFile);
    try {
      expect(
        countRows(inspector, `SELECT count(*) AS n FROM chunks_cjk WHERE chunks_cjk MATCH '"감사합"'`),
      ).toBe(0);
      expect(
        countRows(inspector, `SELECT count(*) AS n FROM paths_fts WHERE paths_fts MATCH '"korean"'`),
      ).toBe(0);
    } finally {
      inspector.close();
    }
  });
});

/** A brain indexed by this build, then turned by `alter` (through a second connection) into an older build's. */
async function olderIndex(
  files: Record<string, string>,
  alter: (db: ReturnType<typeof openInspector>) => void,
): Promise<TempBrain> {
  const old = await makeTempBrain(files);
  try {
    const first = IndexStore.open(old.brain.databaseFile);
    await new Indexer(old.brain, first, embedder).indexAll();
    first.close();
    const db = openInspector(old.brain.databaseFile);
    try {
      alter(db);
    } finally {
      db.close();
    }
    return old;
  } catch (error) {
    await old.cleanup();
    throw error;
  }
}

describe("an index from before the trigram and path indexes", () => {
  it("gains both when opened, filled from what it holds", async () => {
    // Turned into a version 1 index: no search aids, no CJK mark, the old schema version.
    const old = await olderIndex(
      { "notes/東京メモ.md": "# 東京\n\n## 天気\n\n東京の天気は晴れでした。\n" },
      (db) =>
        db.exec(
          "DROP TRIGGER chunks_cjk_delete; DROP TRIGGER chunks_cjk_update_old; " +
            "DROP TRIGGER chunks_cjk_update_new; DROP TABLE chunks_cjk; DROP VIEW chunks_cjk_source; " +
            "DROP TRIGGER files_path_insert; DROP TRIGGER files_path_delete; DROP TABLE paths_fts; DROP TABLE file_paths; " +
            `ALTER TABLE chunks DROP COLUMN cjk; ${V1_FTS_INSERT} UPDATE meta SET value = '1' WHERE key = 'schema_version'`,
        ),
    );
    try {
      const reopened = IndexStore.open(old.brain.databaseFile);
      try {
        expect(reopened.meta("schema_version")).toBe("3");
        expect(triggerNames(old.brain.databaseFile)).not.toContain("chunks_fts_insert");
        const hits = await new HybridSearch(reopened, embedder).search("東京の天気", { mode: "lexical" });
        expect(hits.map((h) => h.path)).toEqual(["notes/東京メモ.md"]);
        const named = await new HybridSearch(reopened, embedder).search("show 東京メモ.md");
        expect(named[0]?.explanation.floor.passed).toBe("named");
      } finally {
        reopened.close();
      }
    } finally {
      await old.cleanup();
    }
  });
});

// Versions 1 and 2 fed the word index by a trigger.
const V1_FTS_INSERT = `CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, content, headings, path) VALUES (new.rowid, new.content, new.heading_text, new.path);
END;`;

function triggerNames(file: string): string[] {
  const db = openInspector(file);
  try {
    return db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'trigger'")
      .all()
      .map((t) => t.name);
  } finally {
    db.close();
  }
}

// The trigram index's view and triggers of version 2, which tested the text itself with GLOB.
const CJK_GLOB = "'*[⺀-鿿가-힯ｦ-ﾟ]*'";
const V2_CJK_TEST = (row: string) =>
  `(${row}.content GLOB ${CJK_GLOB} OR ${row}.heading_text GLOB ${CJK_GLOB})`;
const V2_CJK_AIDS = `
CREATE VIEW chunks_cjk_source AS SELECT rowid, content, heading_text AS headings FROM chunks
  WHERE content GLOB ${CJK_GLOB} OR heading_text GLOB ${CJK_GLOB};
CREATE TRIGGER chunks_cjk_insert AFTER INSERT ON chunks WHEN ${V2_CJK_TEST("new")} BEGIN
  INSERT INTO chunks_cjk(rowid, content, headings) VALUES (new.rowid, new.content, new.heading_text);
END;
CREATE TRIGGER chunks_cjk_delete AFTER DELETE ON chunks WHEN ${V2_CJK_TEST("old")} BEGIN
  INSERT INTO chunks_cjk(chunks_cjk, rowid, content, headings) VALUES ('delete', old.rowid, old.content, old.heading_text);
END;`;

describe("an index from before the CJK mark (version 2)", () => {
  it("marks the chunks its trigram index holds, keeps that index whole, and goes on maintaining it", async () => {
    let marked = 0;
    const files = {
      "notes/東京メモ.md":
        "# 東京\n\n## 天気\n\n東京の天気は晴れでした。\n\n## Plain\n\nNothing but English here.\n",
      "notes/한국.md": "# Seoul\n\n감사합니다, see you soon.\n",
      "notes/plain.md": "# Plain\n\nOnly English words.\n",
    };
    const old = await olderIndex(files, (db) => {
      marked = countRows(db, "SELECT count(*) AS n FROM chunks WHERE cjk");
      expect(marked).toBe(countRows(db, "SELECT count(*) AS n FROM chunks_cjk_docsize"));
      expect(marked).toBeGreaterThan(1);
      expect(marked).toBeLessThan(countRows(db, "SELECT count(*) AS n FROM chunks"));
      db.exec(
        "DROP TRIGGER chunks_cjk_delete; DROP TRIGGER chunks_cjk_update_old; " +
          "DROP TRIGGER chunks_cjk_update_new; DROP VIEW chunks_cjk_source; ALTER TABLE chunks DROP COLUMN cjk; " +
          `${V1_FTS_INSERT} ${V2_CJK_AIDS} UPDATE meta SET value = '2' WHERE key = 'schema_version'`,
      );
    });
    try {
      const reopened = IndexStore.open(old.brain.databaseFile);
      try {
        expect(reopened.meta("schema_version")).toBe("3");
        const triggers = triggerNames(old.brain.databaseFile);
        expect(triggers).not.toContain("chunks_fts_insert");
        expect(triggers).not.toContain("chunks_cjk_insert");
        expect(triggers).toContain("chunks_cjk_delete");
        const check = openInspector(old.brain.databaseFile);
        try {
          expect(countRows(check, "SELECT count(*) AS n FROM chunks WHERE cjk")).toBe(marked);
          check.exec("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('integrity-check')");
        } finally {
          check.close();
        }
        const hits = await new HybridSearch(reopened, embedder).search("東京の天気", { mode: "lexical" });
        expect(hits.map((h) => h.path)).toEqual(["notes/東京メモ.md"]);
        // The new triggers read the mark: the file's removal takes its trigrams with it, and the index stays whole;
        // a new file's entries are written by the indexer itself.
        await old.remove("notes/東京メモ.md");
        await old.write("notes/大阪.md", "# 大阪\n\n大阪の天気は雨でした。\n");
        await new Indexer(old.brain, reopened, embedder).indexAll();
        const after = openInspector(old.brain.databaseFile);
        try {
          expect(countRows(after, "SELECT count(*) AS n FROM chunks_cjk_docsize")).toBe(2);
          after.exec("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('integrity-check')");
          after.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')");
          expect(
            countRows(after, `SELECT count(*) AS n FROM chunks_cjk WHERE chunks_cjk MATCH '"大阪の"'`),
          ).toBe(1);
          expect(
            countRows(after, `SELECT count(*) AS n FROM chunks_cjk WHERE chunks_cjk MATCH '"감사합"'`),
          ).toBe(1);
        } finally {
          after.close();
        }
      } finally {
        reopened.close();
      }
    } finally {
      await old.cleanup();
    }
  });
});

describe("one pass for the best matches and the semantic candidates' scores", () => {
  it("gives the same best list and the same scores as two separate queries", async () => {
    const files: Record<string, string> = {};
    // 60 sections that match "heron" or "pond" to different degrees, and 20 that match neither.
    for (let i = 0; i < 80; i++) {
      const words = i < 60 ? `${"heron ".repeat(1 + (i % 7))}${i % 3 === 0 ? "pond " : ""}` : "gravel road ";
      files[`notes/n${String(i).padStart(2, "0")}.md`] = `# Note ${i}\n\n${words}filler text number ${i}.\n`;
    }
    const brain = await makeTempBrain(files);
    const own = IndexStore.open(brain.brain.databaseFile);
    try {
      await new Indexer(brain.brain, own, embedder).indexAll();
      const query = new LexicalQuery(own.lexical, "heron pond");
      const all = query.matchesWith(1000, []).best;
      expect(all).toHaveLength(60);
      // Candidates from inside the best 10, from past it, and chunks that do not match at all.
      const unmatched = own.chunksOfFile("notes/n70.md").map((c) => c.rowid);
      const also = [all[2]?.[0], all[25]?.[0], all[59]?.[0], ...unmatched].filter((r) => r !== undefined);
      const { best, alsoScores } = query.matchesWith(10, also);
      const separate = query.matchesWith(10, []).best;
      expect(best.map(([, bm25]) => bm25)).toEqual(separate.map(([, bm25]) => bm25));
      expect(new Set(best.map(([rowid]) => rowid))).toEqual(new Set(separate.map(([rowid]) => rowid)));
      expect(alsoScores).toEqual(query.scoresOf(also));
      expect(alsoScores.size).toBe(3);
      for (const rowid of unmatched) expect(alsoScores.has(rowid)).toBe(false);
    } finally {
      own.close();
      await brain.cleanup();
    }
  });
});

describe("the query-vector cache", () => {
  it("embeds a repeated query once and forgets the least recently used", async () => {
    const counting = new CountingEmbedder(embedder);
    const cached = new HybridSearch(store, counting, undefined, { queryCacheSize: 2 });
    for (const q of ["dentist", "dentist", "herons", "dentist", "bank", "herons"]) await cached.search(q);
    // dentist (miss), dentist (hit), herons (miss), dentist (hit), bank (miss, evicts herons), herons (miss)
    expect(counting.texts).toEqual(["dentist", "herons", "bank", "herons"]);
    expect([cached.queryVectors.hits, cached.queryVectors.misses, cached.queryVectors.size]).toEqual([
      2, 4, 2,
    ]);
    // One cache, two embedding spaces: the same words are embedded once in each.
    const cache = new QueryVectorCache(8);
    const other = new CountingEmbedder(embedder, { model: "another-model" });
    counting.reset();
    await cache.vectorOf(counting, "dentist");
    await cache.vectorOf(other, "dentist");
    await cache.vectorOf(other, "dentist");
    expect([counting.texts, other.texts]).toEqual([["dentist"], ["dentist"]]);
  });
});
