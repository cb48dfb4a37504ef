/**
 * Patrol tick cost: the duty officer's tick (service probes, the observer's patrol of every theater, reissues,
 * the PATROL_TICK it appends) over a SQLite ledger of 10k and 100k events of orders' lives, with ten orders still
 * running in worktrees, against reading every event of the same ledger back with no work on it, in the same run.
 * The first tick of a process reads the history once to learn which orders are active; later ticks read only what
 * was appended since, so they should not grow with the ledger.
 *
 *   node --import tsx bench/command/patrol-tick.ts [--quick]     (--quick: 10k only)
 */
import { parseArgs } from "node:util";
import type { SqliteEventStore } from "../../src/ledger/index.js";
import { appendSyntheticRun, type SyntheticOrder } from "../../test/support/learning-history.js";
import { OversightFixture } from "../../test/support/oversight-fixture.js";
import { percentile } from "../percentile.js";

const { values } = parseArgs({ options: { quick: { type: "boolean" } } });
const SIZES = values.quick ? [10_000] : [10_000, 100_000];
const LATER_TICKS = 9;
const RUNNING = 10;

const orders: SyntheticOrder[] = Array.from({ length: 10 }, (_, i) => ({
  type: i % 2 ? "code" : "research",
  profile: i % 3 ? "fast" : "careful",
  outcome: i % 5 === 0 ? "failed" : "completed",
  latencyMs: 1000 + i * 100,
}));

/** A run whose completed orders were merged, as a healthy ledger holds them: settled, so no patrol looks again. */
async function integrated(store: SqliteEventStore, planned: SyntheticOrder[]): Promise<void> {
  const { runId, orderIds } = await appendSyntheticRun(store, planned);
  const base = { garrison_id: "local", theater_id: "demo", run_id: runId, unit_id: null };
  await store.appendBatch(
    orderIds.flatMap((orderId, i) =>
      planned[i]?.outcome !== "completed"
        ? []
        : (["INTEGRATION_STARTED", "INTEGRATION_PASSED", "INTEGRATED"] as const).map((type) => ({
            ...base,
            order_id: orderId,
            type,
            payload: type === "INTEGRATED" ? { commit_sha: "abcdef1" } : {},
          })),
    ),
  );
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

async function ms(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const rows: string[] = [];
for (const size of SIZES) {
  const fx = await OversightFixture.create();
  try {
    while ((await fx.store.head()) < size - RUNNING * 3) await integrated(fx.store, orders);
    for (let i = 0; i < RUNNING; i++) await fx.startedOrder(`running_${i}`);
    const events = await fx.store.head();
    const { dutyOfficer } = await fx.oversight();
    const first = await ms(() => dutyOfficer.tick());
    const later: number[] = [];
    for (let i = 0; i < LATER_TICKS; i++) {
      fx.clock.advance(30_000);
      later.push(await ms(() => dutyOfficer.tick()));
    }
    await dutyOfficer.stop();
    const scans: number[] = [];
    for (let i = 0; i < 3; i++) scans.push(await ms(() => readAll(fx.store)));
    const scan = percentile(scans, 50);
    const laterP50 = percentile(later, 50);
    rows.push(
      `${String(events).padStart(7)} | ${first.toFixed(0).padStart(8)} ms | ${laterP50.toFixed(1).padStart(8)} ms` +
        ` | ${scan.toFixed(0).padStart(8)} ms | ${(laterP50 / scan).toFixed(3).padStart(6)}x`,
    );
  } finally {
    await fx.close();
  }
}
console.log(
  `patrol tick, SQLite ledger, ${RUNNING} orders running (load ${(await import("node:os")).loadavg()[0]?.toFixed(2)})`,
);
console.log(" events | first tick  | later p50   | read-all p50 | later/read-all");
for (const row of rows) console.log(row);
