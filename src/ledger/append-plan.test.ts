import { describe, expect, it } from "vitest";
import { type PlanInput, planAppend } from "./append-plan.js";
import { EventIdConflictError, IllegalTransitionError, StreamVersionConflictError } from "./errors.js";
import { prepareEvents } from "./event-input.js";
import type { RecordedEvent } from "./event-store.js";
import { SnapshotSet } from "./projection.js";

const tick = (id?: string) => ({
  ...(id === undefined ? {} : { event_id: id }),
  type: "PATROL_TICK",
  garrison_id: "local",
  theater_id: null,
  run_id: null,
  payload: {},
});
const runCreated = (id?: string) => ({ ...tick(id), type: "RUN_CREATED", theater_id: "demo", run_id: "r1" });

/** A copy of `input` as the store would hold it at `position`. */
function storedCopy(input: unknown, position: number): RecordedEvent {
  const [prepared] = prepareEvents([input], { batch: false });
  if (!prepared) throw new Error("nothing prepared");
  return { ...prepared.event, position };
}

function plan(inputs: unknown[], overrides: Partial<PlanInput> = {}) {
  return planAppend({
    prepared: prepareEvents(inputs, { batch: true }),
    head: 10,
    stored: new Map(),
    snapshots: new SnapshotSet(),
    expect: [],
    ...overrides,
  });
}

describe("planning an append", () => {
  it("numbers new events from the head on and projects them", () => {
    const snapshots = new SnapshotSet();
    const { fresh, results } = plan([runCreated(), tick()], { snapshots });
    expect(fresh.map((e) => e.position)).toEqual([11, 12]);
    expect(results.map((r) => r.duplicate)).toEqual([false, false]);
    expect([...snapshots.changedRuns]).toEqual(["r1"]);
  });

  it("answers a stored copy with its own position and time, without a new position", () => {
    const stored = storedCopy(tick("t1"), 3);
    const { fresh, results } = plan([tick("t1"), tick()], { stored: new Map([["t1", stored]]) });
    expect(results[0]).toEqual({ event_id: "t1", ts: stored.ts, duplicate: true, position: 3 });
    expect(fresh.map((e) => e.position)).toEqual([11]);
  });

  it("refuses a stored event_id with another body", () => {
    const stored = storedCopy(tick("t1"), 3);
    const other = { ...tick("t1"), payload: { x: 1 } };
    expect(() => plan([other], { stored: new Map([["t1", stored]]) })).toThrow(EventIdConflictError);
  });

  it("checks expected versions only when something new is appended", () => {
    const expectation = { expect: [{ kind: "run" as const, id: "r1", version: 3 }] };
    expect(() => plan([runCreated()], expectation)).toThrow(StreamVersionConflictError);
    const stored = new Map([["a", storedCopy(runCreated("a"), 1)]]);
    expect(plan([runCreated("a")], { ...expectation, stored }).results[0]?.duplicate).toBe(true);
  });

  it("leaves the snapshot set untouched by a refused event", () => {
    const snapshots = new SnapshotSet();
    plan([runCreated()], { snapshots });
    const before = snapshots.runs.get("r1");
    expect(() => plan([runCreated()], { snapshots })).toThrow(IllegalTransitionError);
    expect(snapshots.runs.get("r1")).toBe(before);
  });
});
