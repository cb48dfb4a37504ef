import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RecordedEvent, subscribe } from "../../src/ledger/index.js";
import { ev, orderCreated, runCreated, workerBatch } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

const ticks = (n: number) => Array.from({ length: n }, (_, i) => ev("PATROL_TICK", null, null, { i }));

/** Reads a subscription in the background until `count` events arrived, then aborts it. */
function collect(events: AsyncIterable<RecordedEvent>, count: number, controller: AbortController) {
  const seen: RecordedEvent[] = [];
  const done = (async () => {
    for await (const event of events) {
      seen.push(event);
      if (seen.length >= count) controller.abort();
    }
    return seen;
  })();
  return { seen, done };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe.each(stores)("$name ledger: subscriptions", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("catches up from a checkpoint, then follows appends from other connections without gaps or duplicates", async () => {
    const { store } = ledger;
    await store.appendBatch(ticks(30));
    const controller = new AbortController();
    const sub = subscribe(store, { after: 10, pageSize: 7, pollIntervalMs: 20, signal: controller.signal });
    const { seen, done } = collect(sub, 60, controller);
    await until(() => seen.length >= 20);

    // Two other writers at once, and several concurrent appends through one store (PostgreSQL runs those on
    // separate pooled connections, which is where commit-order gaps would show).
    const [other1, other2] = [await ledger.connect(), await ledger.connect()];
    await Promise.all([
      (async () => {
        for (let i = 0; i < 5; i++) await other1.appendBatch(ticks(3));
      })(),
      (async () => {
        for (let i = 0; i < 10; i++) await other2.append(ev("PATROL_TICK", null));
      })(),
      Promise.all(Array.from({ length: 15 }, () => store.append(ev("PATROL_TICK", null)))),
    ]);
    const events = await done;
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: 60 }, (_, i) => i + 11));
  });

  it("delivers only the events of one order, and moves past events that do not match", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1"), orderCreated("r1", "o2")]);
    const controller = new AbortController();
    const sub = subscribe(store, {
      filter: { orderId: "o1" },
      pollIntervalMs: 20,
      signal: controller.signal,
    });
    const { seen, done } = collect(sub, 5, controller);
    await until(() => seen.length === 1);
    await store.appendBatch(workerBatch("r1", "o2"));
    await store.appendBatch(workerBatch("r1", "o1"));
    const events = await done;
    expect(events.map((e) => [e.order_id, e.type])).toEqual([
      ["o1", "ORDER_CREATED"],
      ["o1", "ORDER_STARTED"],
      ["o1", "ARTIFACT_WRITTEN"],
      ["o1", "AAR_WRITTEN"],
      ["o1", "ORDER_COMPLETED"],
    ]);
  });

  it("ends at the head when it does not follow, and when its signal aborts", async () => {
    const { store } = ledger;
    await store.appendBatch(ticks(5));
    const all: number[] = [];
    for await (const e of subscribe(store, { after: 2, follow: false })) all.push(e.position);
    expect(all).toEqual([3, 4, 5]);

    const controller = new AbortController();
    const waiting = (async () => {
      const got: RecordedEvent[] = [];
      for await (const e of subscribe(store, { after: 5, pollIntervalMs: 10_000, signal: controller.signal }))
        got.push(e);
      return got;
    })();
    controller.abort();
    expect(await waiting).toEqual([]);
  });
});
