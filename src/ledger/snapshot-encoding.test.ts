import { describe, expect, it } from "vitest";
import { canonicalJson, InvalidInputError } from "../core/index.js";
import { decodeOrderSnapshot, decodeRunSnapshot } from "./event-row.js";
import type { RecordedEvent } from "./event-store.js";
import { SnapshotSet } from "./projection.js";
import { encodeSnapshot } from "./snapshot-encoding.js";

let position = 0;
const event = (
  type: RecordedEvent["type"],
  orderId: string | null,
  payload: Record<string, unknown> = {},
) => ({
  position: ++position,
  event_id: `e${position}`,
  ts: "2026-01-14T16:21:00Z",
  type,
  garrison_id: "local",
  theater_id: "demo",
  run_id: "r1",
  order_id: orderId,
  unit_id: type === "ORDER_STARTED" ? "assault_1" : null,
  payload,
});

describe("encoding a snapshot", () => {
  it("writes exactly the bytes of canonical JSON for the snapshots the projections build", () => {
    const set = new SnapshotSet();
    set.apply(event("RUN_CREATED", null, { objective: 'Ünïcode "quoted" \n objective 😀' }));
    for (const o of ["o2", "o1", "o10"]) {
      set.apply(event("ORDER_CREATED", o));
      set.apply(event("ORDER_STARTED", o, { attempt: 1 }));
      set.apply(event("ARTIFACT_WRITTEN", o, { path: "out/b.txt", type: "text/plain" }));
      set.apply(event("ARTIFACT_WRITTEN", o, { path: "out/a.txt" }));
    }
    const snapshots = [...set.runSnapshots("all"), ...set.orderSnapshots("all")];
    expect(snapshots).toHaveLength(4);
    for (const snapshot of snapshots) expect(encodeSnapshot(snapshot)).toBe(canonicalJson(snapshot));
  });

  it("gets snapshots from the projections with their keys in canonical order, also after a decoded one", () => {
    const set = new SnapshotSet();
    set.apply(event("RUN_CREATED", null));
    set.apply(event("ORDER_CREATED", "o1"));
    // Decoding puts keys in the contract's order; the next event's copy puts them back in canonical order.
    const decodedRun = decodeRunSnapshot(canonicalJson(set.runs.get("r1")));
    const decodedOrder = decodeOrderSnapshot(canonicalJson(set.orders.get("o1")));
    expect(JSON.stringify(decodedOrder)).not.toBe(canonicalJson(decodedOrder));
    const next = new SnapshotSet();
    next.runs.set("r1", decodedRun);
    next.orders.set("o1", decodedOrder);
    next.apply(event("ORDER_STARTED", "o1", { attempt: 1 }));
    for (const snapshot of [
      ...set.runSnapshots("all"),
      ...next.runSnapshots("all"),
      ...next.orderSnapshots("all"),
    ])
      expect(JSON.stringify(snapshot)).toBe(canonicalJson(snapshot));
  });

  it("sorts keys by UTF-16 code units at every depth and writes numbers as JSON does", () => {
    const value = {
      zeta: [3, { b: 1, a: [null, undefined, -0, 1e21, 0.1, 1 / 3] }],
      é: "\u0001\t",
      B: true,
      a: false,
      "😀": { "\uFFFF": 1, "\uD83D\uDE00": 2 },
      skipped: undefined,
      empty: {},
    };
    expect(encodeSnapshot(value)).toBe(canonicalJson(value));
  });

  it("refuses what canonical JSON has no form for, as canonicalJson does", () => {
    for (const bad of [
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { s: "\uD800" },
      { "\uDC00": 1 },
    ]) {
      expect(() => canonicalJson(bad)).toThrow(InvalidInputError);
      expect(() => encodeSnapshot(bad)).toThrow(InvalidInputError);
    }
  });
});
