/**
 * The writer half of the subscription-lag benchmark, in its own process as a real writer would be: appends
 * batches of 100 lifecycle events at a steady rate and reports each batch's positions and acknowledgement time
 * (epoch milliseconds, comparable across processes) to the parent over IPC.
 *
 *   node --import tsx bench/ledger/lag-writer.ts (--db <file> | --postgres <url> --schema <s>) --rate N --seconds S
 */
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { type EventStore, PostgresEventStore, SqliteEventStore } from "../../src/ledger/index.js";
import { lifecycleEvents, take } from "./workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    postgres: { type: "string" },
    schema: { type: "string" },
    rate: { type: "string", default: "10000" },
    seconds: { type: "string", default: "3" },
  },
});

const store: EventStore = values.db
  ? await SqliteEventStore.open({ path: values.db })
  : await PostgresEventStore.open({
      url: values.postgres ?? "",
      schema: values.schema ?? "ledger",
      poolSize: 1,
    });

const BATCH = 100;
const events = lifecycleEvents("lag");
const batches = Math.round((Number(values.rate) * Number(values.seconds)) / BATCH);
const interval = (BATCH / Number(values.rate)) * 1000;
const start = performance.now();
for (let i = 0; i < batches; i++) {
  const due = start + i * interval;
  const wait = due - performance.now();
  if (wait > 0) await sleep(wait);
  const results = await store.appendBatch(take(events, BATCH));
  const ackAt = performance.timeOrigin + performance.now();
  process.send?.({ first: results[0]?.position, last: results.at(-1)?.position, ackAt });
}
process.send?.({ done: true, millis: performance.now() - start, events: batches * BATCH });
await store.close();
