import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventStore } from "../../src/ledger/index.js";
import { runCreated } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";
import { type Ack, startWriter } from "./writer-process.js";

/** Every event exactly once, at gapless positions 1..head; returns event_id → position. */
async function readWholeLedger(store: EventStore): Promise<Map<string, number>> {
  const events = await store.read({ limit: 1_000_000 });
  expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
  expect(await store.head()).toBe(events.length);
  const positions = new Map(events.map((e) => [e.event_id, e.position]));
  expect(positions.size).toBe(events.length);
  return positions;
}

function expectAcknowledged(positions: Map<string, number>, acks: readonly Ack[]): void {
  const missing = acks.filter((a) => positions.get(a.eventId) !== a.position);
  expect(missing).toEqual([]);
}

async function expectProjectionsMatchRebuild(store: EventStore): Promise<void> {
  const stored = await store.dumpSnapshots();
  await store.rebuild();
  expect(await store.dumpSnapshots()).toEqual(stored);
}

describe.each(stores)("$name ledger: reliability across processes", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("keeps every acknowledged append exactly once when the writer is killed with SIGKILL mid-stream", async () => {
    const writer = startWriter([...ledger.args, "--writer", "k", "--orders", "0"]);
    await writer.acked(150);
    writer.child.kill("SIGKILL");
    const { signal } = await writer.exited;
    expect(signal).toBe("SIGKILL");
    expect(writer.acks.length).toBeGreaterThanOrEqual(150);

    // A fresh connection, as after a restart: SQLite recovers its WAL, PostgreSQL rolled the open transaction back.
    const store = await ledger.connect();
    const positions = await readWholeLedger(store);
    expectAcknowledged(positions, writer.acks);
    // At most the append in flight when the kill landed may be stored without an ack having been printed.
    expect(positions.size - writer.acks.length).toBeLessThanOrEqual(4);
    await expectProjectionsMatchRebuild(store);
    // The ledger takes appends again and carries on from its head.
    const next = await store.append(runCreated("after-restart"));
    expect(next.position).toBe(positions.size + 1);
  });

  it("loses and duplicates nothing with several writer processes appending at once", async () => {
    const writers = ["a", "b", "c", "d"].map((name) =>
      startWriter([...ledger.args, "--writer", name, "--orders", "12", "--shared", "6"]),
    );
    const exits = await Promise.all(writers.map((w) => w.exited));
    for (const exit of exits) expect(exit).toMatchObject({ code: 0 });

    const store = await ledger.connect();
    const positions = await readWholeLedger(store);
    // Per writer: its run, 12 orders × 7 events; plus 6 shared events stored once for all four.
    expect(positions.size).toBe(4 * (1 + 12 * 7) + 6);
    for (const writer of writers) {
      expectAcknowledged(positions, writer.acks);
      const own = writer.acks.filter((a) => !a.eventId.startsWith("shared-")).map((a) => a.position);
      expect(own).toEqual([...own].sort((x, y) => x - y));
    }
    for (let i = 0; i < 6; i++) {
      const answers = new Set(writers.map((w) => w.acks.find((a) => a.eventId === `shared-${i}`)?.position));
      expect(answers).toEqual(new Set([positions.get(`shared-${i}`)]));
    }
    for (const name of ["a", "b", "c", "d"]) {
      const run = await store.getRun(`run-${name}`);
      expect(run?.orders).toHaveLength(12);
      expect(run?.orders.every((o) => o.status === "COMPLETED")).toBe(true);
      expect(run?.version).toBe(1 + 12 * 7);
    }
    await expectProjectionsMatchRebuild(store);
  });
});
