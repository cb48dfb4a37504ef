// Ranking features' cost: `node --import tsx bench/memory/features.ts [chunks]` (default 100000).
// Generates a brain of that many chunks, half in dated daily logs spread over two years and half in undated
// notes, indexes it with the built-in embedder, then times one set of queries through every configuration in
// the same run, interleaved query by query so that machine load falls on all of them alike: the fusion before
// this change (relative), calibrated fusion alone, + decay, + MMR, all of it with the floor (the defaults), and
// the defaults with the query vector cached. Prints p50/p99 and their ratios to calibrated fusion alone, the
// load average, and writes JSON to bench/results/.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ironclawHome } from "../../src/core/index.js";
import {
  BrainLayout,
  BuiltinEmbedder,
  HybridSearch,
  Indexer,
  IndexStore,
  loadWordTable,
  type SearchOptions,
  seededRandom,
} from "../../src/memory/index.js";
import { percentile } from "../percentile.js";
import { formatTable } from "./stats.js";

const CHUNKS = Number(process.argv[2] ?? 100_000);
const SECTIONS_PER_FILE = 10;
const QUERIES = 300;
const WARMUP = 20;
const TOP_K = 10;
const NOW = new Date("2025-07-01T12:00:00Z");

const CONFIGS: Record<string, SearchOptions> = {
  "relative fusion (before)": { fusion: "relative", decay: false, mmr: false, minScore: 0 },
  "calibrated fusion": { decay: false, mmr: false, minScore: 0 },
  "+ decay": { decay: true, mmr: false, minScore: 0 },
  "+ MMR": { decay: false, mmr: true, minScore: 0 },
  "defaults (decay + MMR + floor)": {},
};
const BASELINE = "calibrated fusion";
const CACHED = "defaults, query vector cached";

const ms = (n: number) => Math.round(n * 1000) / 1000;
const embedder = await BuiltinEmbedder.load({ dataDir: ironclawHome() });
const { table } = await loadWordTable(ironclawHome());
const vocabulary = Array.from({ length: 30_000 }, (_, i) => table.wordAt(300 + i));
const random = seededRandom(CHUNKS);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const topics = Array.from({ length: 500 }, () => Array.from({ length: 25 }, () => pick(vocabulary)));

const root = await mkdtemp(join(tmpdir(), "ironclaw-bench-features-"));
try {
  const files = Math.ceil(CHUNKS / SECTIONS_PER_FILE);
  for (let f = 0; f < files; f++) await writeNote(f);
  const brain = BrainLayout.open(root);
  const store = IndexStore.open(brain.databaseFile);
  const started = performance.now();
  const report = await new Indexer(brain, store, embedder).indexAll();
  const indexSeconds = (performance.now() - started) / 1000;
  process.stderr.write(`indexed ${report.chunksAdded} chunks in ${indexSeconds.toFixed(1)} s\n`);

  const queries = Array.from({ length: QUERIES + WARMUP }, () => {
    const words = pick(topics);
    return `${pick(words)} ${pick(words)} ${pick(words)} ${pick(vocabulary)}`;
  });
  const plain = new HybridSearch(store, embedder, undefined, { clock: () => NOW, queryCacheSize: 0 });
  const cached = new HybridSearch(store, embedder, undefined, { clock: () => NOW });
  const runs: Array<[string, (q: string) => Promise<unknown>]> = [
    ...Object.entries(CONFIGS).map(([name, o]): [string, (q: string) => Promise<unknown>] => [
      name,
      (q) => plain.search(q, { ...o, topK: TOP_K }),
    ]),
    [CACHED, (q) => cached.search(q, { topK: TOP_K })],
  ];
  const times = new Map(runs.map(([name]) => [name, [] as number[]]));
  const loadBefore = loadavg();
  for (const [i, q] of queries.entries()) {
    // The cached configuration sees each query once before it is timed, as a repeated recall would.
    await cached.search(q, { topK: TOP_K });
    // Rotate the order so no configuration always runs first (cold caches) or last.
    for (let r = 0; r < runs.length; r++) {
      const [name, run] = runs[(r + i) % runs.length] as (typeof runs)[number];
      const start = performance.now();
      await run(q);
      if (i >= WARMUP) times.get(name)?.push(performance.now() - start);
    }
  }
  const loadAfter = loadavg();
  store.close();

  const base = times.get(BASELINE) ?? [];
  const rows = runs.map(([name]) => {
    const t = times.get(name) ?? [];
    return {
      name,
      p50: ms(percentile(t, 50)),
      p99: ms(percentile(t, 99)),
      p50Ratio: ms(percentile(t, 50) / percentile(base, 50)),
      p99Ratio: ms(percentile(t, 99) / percentile(base, 99)),
    };
  });
  console.log(
    `\n${report.chunksAdded} chunks (${files} files, half dated), ${QUERIES} queries, top ${TOP_K}\n${formatTable(
      ["configuration", "p50 ms", "p99 ms", `p50 ÷ ${BASELINE}`, `p99 ÷ ${BASELINE}`],
      rows.map((r) => [r.name, String(r.p50), String(r.p99), `${r.p50Ratio}×`, `${r.p99Ratio}×`]),
    )}\nload average before ${loadBefore.map(ms).join(" ")}, after ${loadAfter.map(ms).join(" ")}\n`,
  );
  const dir = join(import.meta.dirname, "../results");
  await mkdir(dir, { recursive: true });
  const out = join(dir, `memory-features-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`);
  const meta = {
    node: process.version,
    embedder: embedder.model,
    chunks: report.chunksAdded,
    queries: QUERIES,
  };
  await writeFile(
    out,
    `${JSON.stringify({ ...meta, indexSeconds: ms(indexSeconds), loadBefore, loadAfter, rows }, null, 2)}\n`,
  );
  console.log(`wrote ${out}`);
} finally {
  await rm(root, { recursive: true, force: true });
}

/** One file of sections about random topics: even files are daily logs of the last two years, odd ones notes. */
async function writeNote(f: number): Promise<void> {
  const day = new Date(NOW.getTime() - Math.floor(random() * 730) * 86_400_000).toISOString().slice(0, 10);
  const path =
    f % 2 === 0 ? `logs/${day.slice(0, 4)}/${day}-${f}.md` : `notes/${Math.floor(f / 500)}/note-${f}.md`;
  const lines = [`# ${f % 2 === 0 ? day : `Note ${f}`}`, ""];
  for (let s = 0; s < SECTIONS_PER_FILE; s++) {
    const words = pick(topics);
    const body = Array.from({ length: 60 + Math.floor(random() * 30) }, () =>
      random() < 0.7 ? pick(words) : pick(vocabulary),
    );
    lines.push(`## ${pick(words)} ${pick(words)} ${s}`, "", `${body.join(" ")}.`, "");
  }
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), lines.join("\n"));
}
