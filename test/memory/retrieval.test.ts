import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrainLayout, HybridSearch, Indexer, IndexStore, type SearchMode } from "../../src/memory/index.js";
import { loadTestEmbedder } from "../../src/memory/test-support.js";

interface Relevant {
  path: string;
  heading: string;
}
interface Query {
  query: string;
  kind: "exact" | "paraphrase" | "mixed";
  relevant: Relevant[];
}

const SET = join(import.meta.dirname, "retrieval-set");
// recall@5, and MRR over the top 10 (a first hit below rank 10 counts 0).
const K = 5;
const MODES: SearchMode[] = ["lexical", "semantic", "hybrid"];

let dir: string;
let store: IndexStore;
let search: HybridSearch;
let queries: Query[];

beforeAll(async () => {
  queries = (JSON.parse(await readFile(join(SET, "queries.json"), "utf8")) as { queries: Query[] }).queries;
  // Index a copy: indexing writes db/ironclaw.db inside the brain.
  dir = await mkdtemp(join(tmpdir(), "ironclaw-retrieval-"));
  await cp(join(SET, "brain"), dir, { recursive: true });
  const brain = BrainLayout.open(dir);
  const embedder = await loadTestEmbedder();
  store = IndexStore.open(brain.databaseFile);
  await new Indexer(brain, store, embedder).indexAll();
  search = new HybridSearch(store, embedder);
});
afterAll(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

const key = (r: Relevant) => `${r.path}#${r.heading}`;

async function evaluate(mode: SearchMode, subset: Query[]) {
  let recall = 0;
  let reciprocal = 0;
  for (const q of subset) {
    const hits = await search.search(q.query, { mode, topK: 10 });
    const ranked = hits.map((h) => `${h.path}#${h.headings.at(-1) ?? ""}`);
    const wanted = new Set(q.relevant.map(key));
    recall += ranked.slice(0, K).filter((r) => wanted.has(r)).length / wanted.size;
    const first = ranked.findIndex((r) => wanted.has(r));
    reciprocal += first < 0 ? 0 : 1 / (first + 1);
  }
  return { recall: recall / subset.length, mrr: reciprocal / subset.length };
}

describe("retrieval quality on the hand-written test set", () => {
  it("has a brain of at least 50 files and 40 queries whose relevant chunks exist", async () => {
    expect(store.fileRecords().length).toBeGreaterThanOrEqual(50);
    expect(queries.length).toBeGreaterThanOrEqual(40);
    const chunks = new Set(
      store
        .fileRecords()
        .flatMap((f) => store.chunksOfFile(f.path).map((c) => `${c.path}#${c.headings.at(-1)}`)),
    );
    const missing = queries.flatMap((q) => q.relevant.map(key)).filter((k) => !chunks.has(k));
    expect(missing).toEqual([]);
  });

  it("hybrid beats lexical-only and semantic-only on recall@5 and MRR", async () => {
    const rows: string[] = [];
    const overall: Record<string, { recall: number; mrr: number }> = {};
    for (const mode of MODES) {
      overall[mode] = await evaluate(mode, queries);
      const byKind = [];
      for (const kind of ["exact", "paraphrase", "mixed"] as const) {
        const m = await evaluate(
          mode,
          queries.filter((q) => q.kind === kind),
        );
        byKind.push(`${kind} ${m.recall.toFixed(3)}/${m.mrr.toFixed(3)}`);
      }
      const o = overall[mode] as { recall: number; mrr: number };
      rows.push(
        `${mode.padEnd(9)} recall@5 ${o.recall.toFixed(3)}  MRR ${o.mrr.toFixed(3)}   (${byKind.join(", ")})`,
      );
    }
    console.log(`retrieval set: ${queries.length} queries, recall@${K} / MRR per leg\n${rows.join("\n")}`);
    const [lexical, semantic, hybrid] = MODES.map((m) => overall[m] as { recall: number; mrr: number }) as [
      { recall: number; mrr: number },
      { recall: number; mrr: number },
      { recall: number; mrr: number },
    ];
    expect(hybrid.recall).toBeGreaterThan(Math.max(lexical.recall, semantic.recall));
    expect(hybrid.mrr).toBeGreaterThan(Math.max(lexical.mrr, semantic.mrr));
  });
});
