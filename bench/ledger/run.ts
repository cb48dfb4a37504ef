/**
 * Ledger benchmark: durable single appends and batched appends (100 per transaction) against a raw INSERT into
 * a bare table with the same durability settings, measured in the same run; the floor under both (the ledger's
 * own stored rows inserted with no ledger code); projection rebuild; subscription lag under a steady write load. Prints a table per store and writes JSON to bench/results/.
 *
 *   node --import tsx bench/ledger/run.ts [--postgres <url>] [--sqlite-only] [--quick]
 *   npm run bench:ledger           SQLite and a throwaway PostgreSQL cluster (scripts/postgres-test-cluster.sh)
 *   npm run bench:ledger:sqlite    SQLite only
 *
 * PostgreSQL is benchmarked when --postgres or IRONCLAW_LEDGER_URL names a server.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { RebuildReport } from "../../src/ledger/index.js";
import { percentile } from "../percentile.js";
import { describeGoal, GOALS, type Goal } from "./goals.js";
import { chunks, fmt, perSecond, timed } from "./measure.js";
import { type LagResult, measureLag } from "./subscription-lag.js";
import { postgresTarget, sqliteTarget, type Target } from "./targets.js";
import { lifecycleEvents, take } from "./workload.js";

const { values } = parseArgs({
  options: { postgres: { type: "string" }, "sqlite-only": { type: "boolean" }, quick: { type: "boolean" } },
});
const quick = values.quick === true;
const SINGLE = quick ? 300 : 2_000;
const BATCHED = quick ? 10_000 : 100_000;
const BATCH = 100;
const ROUNDS = 10;
const LAG = { rate: 10_000, seconds: quick ? 1 : 3 };

/** Medians over rounds: the ledger's rate, the baseline's rate, and the per-round ratio of the two. */
interface Comparison {
  count: number;
  rounds: number;
  ledgerPerSec: number;
  baselinePerSec: number;
  ratio: number;
}

interface Result {
  store: "sqlite" | "postgres";
  durability: string;
  /** The 1-minute load average before and after this store's run: rates are comparable only when quiet. */
  loadAverage: [before: number, after: number];
  single: Comparison;
  batched: Comparison & { batchSize: number };
  /** The ledger's stored rows inserted with no ledger code: the most an append could reach. */
  floor: { single: Comparison; batched: Comparison };
  rebuild: { events: number; perSec: number; byteIdentical: boolean };
  lag: LagResult;
}

/**
 * Runs the baseline and the ledger in alternating rounds (which goes first alternates too) and reports
 * medians, so that a disk or a neighbour that slows down for a while weighs on both sides alike.
 */
async function compare(
  rounds: number,
  perRound: number,
  baselineRound: (round: number) => Promise<void>,
  ledgerRound: (round: number) => Promise<void>,
): Promise<Comparison> {
  const ledger: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const runBaseline = async () =>
      baseline.push(perSecond(perRound, await timed(() => baselineRound(round))));
    const runLedger = async () => ledger.push(perSecond(perRound, await timed(() => ledgerRound(round))));
    if (round % 2 === 0) await runBaseline().then(runLedger);
    else await runLedger().then(runBaseline);
  }
  return {
    count: rounds * perRound,
    rounds,
    ledgerPerSec: percentile(ledger, 50),
    baselinePerSec: percentile(baseline, 50),
    ratio: percentile(
      ledger.map((l, i) => l / (baseline[i] ?? Number.NaN)),
      50,
    ),
  };
}

async function bench(target: Target): Promise<Result> {
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const baseline = await target.openBaseline();
  // Warm the JIT and the files on both paths before anything is timed.
  const warm = await target.openLedger("warmup");
  for (const chunk of chunks(take(lifecycleEvents("warm"), 3_000), BATCH)) {
    await warm.store.appendBatch(chunk);
    await baseline.insertBatch(chunk.map((e) => JSON.stringify(e)));
  }
  await warm.store.close();

  const { store } = await target.openLedger("appends");
  const single = chunks(take(lifecycleEvents("single"), SINGLE), SINGLE / ROUNDS);
  const rawSingle = async (round: number) => {
    for (const e of single[round] ?? []) await baseline.insertOne(JSON.stringify(e));
  };
  const singleResult = await compare(ROUNDS, SINGLE / ROUNDS, rawSingle, async (round) => {
    for (const e of single[round] ?? []) await store.append(e);
  });

  const batched = chunks(chunks(take(lifecycleEvents("batched"), BATCHED), BATCH), BATCHED / BATCH / ROUNDS);
  const rawBatched = async (round: number) => {
    for (const chunk of batched[round] ?? []) await baseline.insertBatch(chunk.map((e) => JSON.stringify(e)));
  };
  const batchedResult = await compare(ROUNDS, BATCHED / ROUNDS, rawBatched, async (round) => {
    for (const chunk of batched[round] ?? []) await store.appendBatch(chunk);
  });
  // The floor: the same events' stored rows put straight into a fresh ledger's events table (its indexes and
  // triggers), with no ledger code, no snapshots, against the same raw baseline. No append can beat it.
  const { columns, rows } = await target.eventRows("appends");
  const singleRows = chunks(rows.slice(0, SINGLE), SINGLE / ROUNDS);
  const batchedRows = chunks(chunks(rows.slice(SINGLE, SINGLE + BATCHED), BATCH), BATCHED / BATCH / ROUNDS);
  const floor = await target.openRowFloor("floor", columns);
  const floorSingle = await compare(ROUNDS, SINGLE / ROUNDS, rawSingle, async (round) => {
    for (const row of singleRows[round] ?? []) await floor.insertOne(row);
  });
  const floorBatched = await compare(ROUNDS, BATCHED / ROUNDS, rawBatched, async (round) => {
    for (const chunk of batchedRows[round] ?? []) await floor.insertBatch(chunk);
  });
  await floor.close();
  await baseline.close();

  const before = await store.dumpSnapshots();
  // Seven rebuilds, their median reported: one rebuild's rate moves by ±15 % here from one to the next.
  const rebuilds: RebuildReport[] = [];
  for (let i = 0; i < 7; i++) rebuilds.push(await store.rebuild());
  const byteIdentical = JSON.stringify(await store.dumpSnapshots()) === JSON.stringify(before);
  await store.close();

  const lagLedger = await target.openLedger("lag");
  const lag = await measureLag(lagLedger.store, lagLedger.args, { ...LAG, pollIntervalMs: 5 });
  await lagLedger.store.close();

  return {
    store: target.name,
    durability: target.durability,
    loadAverage: [loadBefore, loadavg()[0] ?? Number.NaN],
    single: singleResult,
    batched: { ...batchedResult, batchSize: BATCH },
    floor: { single: floorSingle, batched: floorBatched },
    rebuild: {
      events: rebuilds[0]?.events ?? 0,
      perSec: percentile(
        rebuilds.map((r) => perSecond(r.events, r.millis)),
        50,
      ),
      byteIdentical,
    },
    lag,
  };
}

function print(r: Result): void {
  const goals = GOALS[r.store];
  const row = (label: string, ledger: string, baseline: string, ratio: string, goal: string) =>
    console.log(
      `  ${label.padEnd(36)} ${ledger.padStart(14)} ${baseline.padStart(14)} ${ratio.padStart(7)}   ${goal}`,
    );
  const [before, after] = r.loadAverage;
  console.log(
    `\nledger on ${r.store} (${r.durability}); medians of ${r.single.rounds} alternating rounds; ` +
      `load average ${fmt(before, 2)} → ${fmt(after, 2)} on ${availableParallelism()} cores`,
  );
  row("", "ledger", "raw INSERT", "ratio", "goal (issue #17)");
  row(
    `single durable appends (${fmt(r.single.count)})`,
    `${fmt(r.single.ledgerPerSec)}/s`,
    `${fmt(r.single.baselinePerSec)}/s`,
    fmt(r.single.ratio, 2),
    describeGoal(goals.single, { rate: r.single.ledgerPerSec, ratio: r.single.ratio }),
  );
  row(
    `batched appends (${r.batched.batchSize}/txn, ${fmt(r.batched.count)})`,
    `${fmt(r.batched.ledgerPerSec)}/s`,
    `${fmt(r.batched.baselinePerSec)}/s`,
    fmt(r.batched.ratio, 2),
    describeGoal(goals.batched, { rate: r.batched.ledgerPerSec, ratio: r.batched.ratio }),
  );
  const floorRow = (label: string, c: Comparison, goal: Goal) =>
    row(
      label,
      `${fmt(c.ledgerPerSec)}/s`,
      `${fmt(c.baselinePerSec)}/s`,
      fmt(c.ratio, 2),
      goal.ratio === undefined ? "" : `no append can beat this (goal ≥ ${fmt(goal.ratio, 2)}× raw)`,
    );
  floorRow("  floor: its rows alone, single", r.floor.single, goals.single);
  floorRow("  floor: its rows alone, batched", r.floor.batched, goals.batched);
  row(
    `projection rebuild (${fmt(r.rebuild.events)} events)`,
    `${fmt(r.rebuild.perSec)}/s`,
    "",
    "",
    [describeGoal(goals.rebuild, { rate: r.rebuild.perSec }), `byte-identical: ${r.rebuild.byteIdentical}`]
      .filter((part) => part !== "")
      .join("; "),
  );
  const l = r.lag;
  console.log(
    `  subscription lag at ${fmt(l.achievedRate)} events/s from another process (poll ${l.pollIntervalMs} ms): ` +
      `p50 ${fmt(l.p50Ms, 1)} ms, p99 ${fmt(l.p99Ms, 1)} ms, max ${fmt(l.maxMs, 1)} ms over ${fmt(l.events)} events`,
  );
}

const targets: Target[] = [sqliteTarget()];
const url = values["sqlite-only"] ? undefined : (values.postgres ?? process.env.IRONCLAW_LEDGER_URL);
if (url) targets.push(postgresTarget(url));
else console.log("(PostgreSQL skipped: no --postgres <url> or IRONCLAW_LEDGER_URL, or --sqlite-only)");

const results: Result[] = [];
for (const target of targets) {
  try {
    const result = await bench(target);
    results.push(result);
    print(result);
  } finally {
    await target.cleanup();
  }
}

mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
const file = new URL(
  `../results/ledger-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
  import.meta.url,
);
writeFileSync(file, `${JSON.stringify({ node: process.version, quick, results }, null, 2)}\n`);
console.log(`\nwrote ${file.pathname}`);
