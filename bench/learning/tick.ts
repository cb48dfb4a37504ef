/**
 * Learning tick cost: one tick over a SQLite ledger of 10k and 100k events of orders' lives (every event one the
 * tick reads: its worst case), against reading every event of the same ledger back with no work on it, in the
 * same run. A tick reads the whole history each time, so its cost grows with the ledger; this says how fast.
 *
 *   node --import tsx bench/learning/tick.ts [--quick]     (--quick: 10k only)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Learning } from "../../src/command/index.js";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { appendSyntheticRun, type SyntheticOrder } from "../../test/support/learning-history.js";
import { percentile } from "../percentile.js";

const { values } = parseArgs({ options: { quick: { type: "boolean" } } });
const SIZES = values.quick ? [10_000] : [10_000, 100_000];
const ROUNDS = 5;
const PROFILES = ["fast", "slow", "careful", "cheap"];
const TYPES = ["draft", "research", "code", "review"];

/** Ten orders per run, spread over profiles and types; a fifth fail, a tenth retry once. */
function runOrders(run: number): SyntheticOrder[] {
  return Array.from({ length: 10 }, (_, i) => {
    const n = run * 10 + i;
    return {
      type: TYPES[n % TYPES.length] ?? "draft",
      profile: PROFILES[(n * 7) % PROFILES.length] ?? "fast",
      outcome: n % 5 === 0 ? "failed" : "completed",
      latencyMs: 500 + ((n * 37) % 5000),
      ...(n % 10 === 3 ? { retries: 1 } : {}),
    };
  });
}

async function readAll(store: SqliteEventStore): Promise<number> {
  let after = 0;
  let count = 0;
  for (;;) {
    const page = await store.read({ after, limit: 5000 });
    count += page.length;
    if (page.length < 5000) return count;
    after = page.at(-1)?.position ?? after;
  }
}

async function timed(work: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  return samples;
}

const rows: string[] = [];
for (const size of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-learn-bench-"));
  const store = await SqliteEventStore.open({ path: join(dir, "ledger.db") });
  try {
    for (let run = 0; (await store.head()) < size; run++) await appendSyntheticRun(store, runOrders(run));
    const events = await store.head();
    const learning = new Learning({ store });
    const first = await timed(() => learning.tick());
    const scan = await timed(() => readAll(store));
    const tick = percentile(first, 50);
    const base = percentile(scan, 50);
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    rows.push(
      `${String(events).padStart(7)} | ${tick.toFixed(0).padStart(7)} ms | ${base.toFixed(0).padStart(7)} ms` +
        ` | ${(tick / base).toFixed(2).padStart(5)}x | ${String(rss).padStart(5)} MiB`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log("events  | tick p50   | read-all p50 | ratio | RSS");
for (const row of rows) console.log(row);
