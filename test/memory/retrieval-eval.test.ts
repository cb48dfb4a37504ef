import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BrainLayout,
  HybridSearch,
  Indexer,
  IndexStore,
  type SearchOptions,
} from "../../src/memory/index.js";
import { loadTestEmbedder } from "../support/memory-fixtures.js";
import { CLASSES, type EvalQuery, evaluate, formatReport, type Report } from "./retrieval-eval-metrics.js";

// The retrieval evaluation: a generated brain of a year of one family's notes, logs and transcripts, and its
// queries in four classes, indexed with the built-in embedder. Each ranking feature is measured on and off in
// the same run, and every configuration must stay above the floors below.

const SET = join(import.meta.dirname, "../fixtures/memory-eval");

const CONFIGS = {
  "relative fusion (before)": { fusion: "relative", decay: false, mmr: false, minScore: 0 },
  "rrf fusion": { fusion: "rrf", decay: false, mmr: false, minScore: 0 },
  "calibrated fusion": { fusion: "calibrated", decay: false, mmr: false, minScore: 0 },
  "calibrated + decay": { decay: true, mmr: false, minScore: 0 },
  "calibrated + mmr": { decay: false, mmr: true, minScore: 0 },
  "calibrated + decay + mmr": { decay: true, mmr: true, minScore: 0 },
  "defaults (+ min_score)": {},
  "semantic leg alone": { mode: "semantic", decay: false, mmr: false },
  "lexical leg alone": { mode: "lexical", decay: false, mmr: false },
} satisfies Record<string, SearchOptions>;
type Config = keyof typeof CONFIGS;

// Floors, [recall@5, MRR] per class: measured values (in the comment) less about 0.03, one or two queries'
// worth, so a change that loses more than that in any class of any configuration fails.
type Floors = Record<(typeof CLASSES)[number], [number, number]>;
const FLOORS: Partial<Record<Config, Floors>> = {
  "calibrated fusion": {
    keyword: [0.94, 0.94], // [0.971, 0.971]
    paraphrase: [0.29, 0.19], // [0.323, 0.223]
    temporal: [0.58, 0.3], // [0.617, 0.329]
    "multi-hop": [0.54, 0.84], // [0.578, 0.871]
  },
  "calibrated + decay": {
    keyword: [0.96, 0.95], // [0.993, 0.984]
    paraphrase: [0.33, 0.21], // [0.361, 0.243]
    temporal: [0.58, 0.34], // [0.617, 0.375]
    "multi-hop": [0.64, 0.87], // [0.676, 0.900]
  },
  "calibrated + mmr": {
    keyword: [0.95, 0.94], // [0.985, 0.977]
    paraphrase: [0.29, 0.19], // [0.323, 0.224]
    temporal: [0.6, 0.3], // [0.633, 0.336]
    "multi-hop": [0.62, 0.86], // [0.657, 0.894]
  },
  "calibrated + decay + mmr": {
    keyword: [0.96, 0.95], // [0.993, 0.985]
    paraphrase: [0.32, 0.21], // [0.353, 0.247]
    temporal: [0.55, 0.33], // [0.583, 0.367]
    "multi-hop": [0.66, 0.87], // [0.696, 0.907]
  },
  "defaults (+ min_score)": {
    keyword: [0.96, 0.95], // [0.993, 0.985]
    paraphrase: [0.32, 0.21], // [0.353, 0.248]
    temporal: [0.55, 0.33], // [0.583, 0.367]
    "multi-hop": [0.66, 0.87], // [0.696, 0.907]
  },
};

/** Questions about nothing in this brain: the floor should leave them short lists. */
const OFF_TOPIC = [
  "how do I configure a Kubernetes ingress controller",
  "what is the capital of Australia",
  "explain quantum entanglement simply",
  "who won the 1998 football world cup",
  "Rust borrow checker and lifetimes",
  "how tall is Mount Everest",
  "history of the Roman empire",
  "what is the airport code of Tokyo Haneda",
];

let dir: string;
let store: IndexStore;
let search: HybridSearch;
let queries: EvalQuery[];
let now: string;
let brainFiles: number;
const reports = new Map<Config, Report>();

beforeAll(async () => {
  ({ queries, now } = JSON.parse(await readFile(join(SET, "queries.json"), "utf8")) as {
    queries: EvalQuery[];
    now: string;
  });
  // Index a copy: indexing writes db/ironclaw.db inside the brain.
  dir = await mkdtemp(join(tmpdir(), "ironclaw-eval-"));
  await cp(join(SET, "brain"), dir, { recursive: true });
  const brain = BrainLayout.open(dir);
  store = IndexStore.open(brain.databaseFile);
  const embedder = await loadTestEmbedder();
  brainFiles = (await new Indexer(brain, store, embedder).indexAll()).files;
  // A fixed clock: the set's "now" is in the past, and rankings must not change with the day the test runs.
  search = new HybridSearch(store, embedder, undefined, { clock: () => new Date(now) });
  for (const [name, options] of Object.entries(CONFIGS) as Array<[Config, SearchOptions]>) {
    reports.set(name, await evaluate(search, queries, now, options));
  }
  console.log(formatReport([...reports]));
}, 120_000);
afterAll(async () => {
  store?.close();
  await rm(dir, { recursive: true, force: true });
});

const report = (config: Config): Report => reports.get(config) as Report;

describe("the retrieval evaluation set", () => {
  it("has at least 300 files and 300 queries of four classes whose expected files exist", async () => {
    expect(brainFiles).toBeGreaterThanOrEqual(300);
    expect(queries.length).toBeGreaterThanOrEqual(300);
    const paths = new Set(store.fileRecords().map((f) => f.path));
    for (const q of queries) {
      expect(CLASSES, q.query).toContain(q.class);
      expect(
        q.expected.filter((p) => !paths.has(p)),
        q.query,
      ).toEqual([]);
      if (q.class === "temporal") expect(q.as_of, q.query).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      else expect(q.as_of, q.query).toBeUndefined();
    }
    for (const c of CLASSES)
      expect(queries.filter((q) => q.class === c).length, c).toBeGreaterThanOrEqual(40);
  });

  it("is exactly what its generator writes", async () => {
    const out = await mkdtemp(join(tmpdir(), "ironclaw-eval-gen-"));
    try {
      const run = spawnSync(process.execPath, ["--import", "tsx", join(SET, "generate.ts"), out], {
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
      const generated = await listFiles(out);
      expect(generated).toEqual(await listFiles(SET, (p) => p === "queries.json" || p.startsWith("brain/")));
      for (const file of generated) {
        expect(await readFile(join(out, file), "utf8"), file).toBe(await readFile(join(SET, file), "utf8"));
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

describe("retrieval quality", () => {
  it("stays above its floor in every class of every measured configuration", () => {
    for (const [config, floors] of Object.entries(FLOORS) as Array<[Config, Floors]>) {
      for (const c of CLASSES) {
        const [recall, mrr] = floors[c];
        expect.soft(report(config)[c].recall, `${config}: ${c} recall@5`).toBeGreaterThanOrEqual(recall);
        expect.soft(report(config)[c].mrr, `${config}: ${c} MRR`).toBeGreaterThanOrEqual(mrr);
      }
    }
  });

  it("calibrated fusion ranks paraphrases almost as the semantic leg alone, where relative fusion failed", () => {
    const before = report("relative fusion (before)");
    const after = report("calibrated fusion");
    const semantic = report("semantic leg alone");
    expect(after.paraphrase.recall).toBeGreaterThanOrEqual(before.paraphrase.recall + 0.08);
    expect(after.paraphrase.mrr).toBeGreaterThanOrEqual(before.paraphrase.mrr + 0.08);
    expect(after.paraphrase.recall).toBeGreaterThanOrEqual(semantic.paraphrase.recall - 0.03);
    // …without losing the exact matches the lexical leg is there for.
    expect(after.keyword.recall).toBeGreaterThanOrEqual(before.keyword.recall);
    expect(after.all.recall).toBeGreaterThan(before.all.recall);
  });

  it("decay ranks the newest state of a thing higher and costs old notes at most two queries", () => {
    const off = report("calibrated fusion");
    const on = report("calibrated + decay");
    expect(on.temporal.mrr).toBeGreaterThan(off.temporal.mrr + 0.02);
    expect(on.dated.recall).toBeGreaterThanOrEqual(off.dated.recall - 2 / off.dated.count);
  });

  it("MMR makes room in the top 5 for the second source of a multi-hop question", () => {
    expect(report("calibrated + mmr")["multi-hop"].recall).toBeGreaterThan(
      report("calibrated fusion")["multi-hop"].recall + 0.05,
    );
  });

  it("min_score costs no query its recall and shortens lists for questions the brain cannot answer", async () => {
    const unfloored = report("calibrated + decay + mmr");
    const floored = report("defaults (+ min_score)");
    expect(floored.all.recall).toBeGreaterThanOrEqual(unfloored.all.recall);
    let withFloor = 0;
    let withoutFloor = 0;
    for (const q of OFF_TOPIC) {
      withFloor += (await search.search(q, { topK: 10 })).length;
      withoutFloor += (await search.search(q, { topK: 10, minScore: 0 })).length;
    }
    expect(withoutFloor).toBe(OFF_TOPIC.length * 10);
    expect(withFloor).toBeLessThan(withoutFloor * 0.75);
    expect(withFloor).toBeGreaterThanOrEqual(OFF_TOPIC.length);
  });
});

async function listFiles(root: string, keep: (path: string) => boolean = () => true): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter(keep)
    .sort();
}
