// Command benchmark (npm run bench:command):
//   node --import tsx bench/command/run.ts [--orders 30] [--cold 5] [--files 20,200] [--burst 200] [--workers 8]
//   [--burst-files 20]
// Part 1: one order's overhead without model time — worktree, prepare, the agent's turn in a warm cell (the
// scripted model answers at once), events, the gate in a cell, the merge — against the bare git it wraps
// (worktree add + commit + merge), interleaved in the same run on a repository of the same size; with a per-step
// breakdown. Part 2: a burst of orders through several workers on the embedded SQLite queue: orders/s, and from
// the ledger and the theater's git, none lost and none merged twice. Exits non-zero when an order is lost or
// merged twice. Writes JSON to bench/results/.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type BurstFigures, measureBurst } from "./burst.js";
import { openCommandParts } from "./command-parts.js";
import { openBenchHost } from "./host.js";
import { measureOverhead, type OverheadFigures } from "./overhead.js";

const { values } = parseArgs({
  options: {
    orders: { type: "string", default: "30" },
    cold: { type: "string", default: "5" },
    files: { type: "string", default: "20,200" },
    burst: { type: "string", default: "200" },
    "burst-files": { type: "string", default: "20" },
    workers: { type: "string", default: "8" },
  },
});
const ORDERS = Number(values.orders);
const COLD = Number(values.cold);
const SIZES = (values.files ?? "200").split(",").map(Number);
const BURST = Number(values.burst);
const WORKERS = Number(values.workers);
const GOAL_MS = 150;

const ms = (n: number) => `${n.toFixed(0)} ms`;
const load = () => (loadavg()[0] ?? Number.NaN).toFixed(2);

function printOverhead(o: OverheadFigures): void {
  console.log(`\nPer order, ${o.orders} orders, theater of ${o.repoFiles} files (p50 / p95):`);
  console.table({
    "command, warm cells": { p50: ms(o.command.p50), p95: ms(o.command.p95) },
    "bare git (worktree add + commit + merge)": { p50: ms(o.bareGit.p50), p95: ms(o.bareGit.p95) },
    difference: { p50: ms(o.overhead.p50), p95: ms(o.overhead.p95) },
    [`command, cold cells (${o.coldCells.orders} orders)`]: { p50: ms(o.coldCells.p50), p95: "" },
    "one command cell, cold start to ready": { p50: ms(o.cellStartMs.p50), p95: ms(o.cellStartMs.p95) },
  });
  const verdict = o.overhead.p50 < GOAL_MS ? "meets" : "misses";
  console.log(
    `ratio ${(o.command.p50 / o.bareGit.p50).toFixed(1)}x; ${verdict} the goal of < ${GOAL_MS} ms above bare git`,
  );
  console.log("Where a warm order's time goes (median ms per step):");
  console.table(
    Object.fromEntries(Object.entries(o.steps).map(([k, v]) => [k, { ms: Number(v.toFixed(1)) }])),
  );
}

function printBurst(b: BurstFigures): void {
  console.log(
    `\n${b.orders} orders in ${b.runs} runs of one ${b.repoFiles}-file theater through ${b.workers} workers (SQLite queue and ledger, cold cells):`,
  );
  console.table({
    "orders/s": { value: b.ordersPerS.toFixed(2) },
    "wall time": { value: `${b.seconds.toFixed(1)} s` },
    "enqueued to INTEGRATED p50 / p95": { value: `${ms(b.latency.p50)} / ${ms(b.latency.p95)}` },
    "merge commits on main": { value: String(b.mergesOnMain) },
    "runs by status": { value: JSON.stringify(b.runStatuses) },
    "lost (not INTEGRATED)": { value: String(b.lost.length) },
    "merged twice": { value: String(b.mergedTwice.length) },
    "INTEGRATED naming another commit": { value: String(b.mismatched.length) },
  });
}

const home = await mkdtemp(join(tmpdir(), "ironclaw-bench-command-"));
const host = await openBenchHost(home);
const loadBefore = load();
let failed = false;
try {
  console.log(
    `cells: ${host.choice}; load average ${loadBefore} on ${(await import("node:os")).availableParallelism()} cpus`,
  );
  const overhead: OverheadFigures[] = [];
  for (const files of SIZES) {
    const partsHome = join(home, `overhead-${files}`);
    await mkdir(partsHome, { recursive: true });
    const parts = await openCommandParts(host, partsHome, files);
    const figures = await measureOverhead(parts, partsHome, {
      orders: ORDERS,
      cold: COLD,
      repoFiles: files,
    }).finally(() => parts.close());
    printOverhead(figures);
    overhead.push(figures);
  }
  let burst: BurstFigures | undefined;
  if (BURST > 0) {
    const burstHome = join(home, "burst");
    await mkdir(burstHome, { recursive: true });
    burst = await measureBurst(host, burstHome, {
      orders: BURST,
      workers: WORKERS,
      repoFiles: Number(values["burst-files"]),
      timeoutMs: 30 * 60_000,
    });
    printBurst(burst);
    failed = burst.lost.length > 0 || burst.mergedTwice.length > 0 || burst.mismatched.length > 0;
    if (failed)
      console.error(
        `FAILED: lost ${burst.lost.join(", ") || "none"}; merged twice ${burst.mergedTwice.join(", ") || "none"}; mismatched ${burst.mismatched.join(", ") || "none"}`,
      );
  }
  const out = join(import.meta.dirname, "../results");
  await mkdir(out, { recursive: true });
  const file = join(out, `command-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`);
  const record = {
    node: process.version,
    cells: host.choice,
    load: { before: loadBefore, after: load() },
    overhead,
    burst,
  };
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${file}`);
} finally {
  await host.close();
  await rm(home, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
