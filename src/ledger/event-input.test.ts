import { describe, expect, it } from "vitest";
import { isUlid, ValidationError } from "../core/index.js";
import { isSameEvent, prepareEvents } from "./event-input.js";

const base = {
  type: "ORDER CLAIMED",
  garrison_id: "local",
  theater_id: "demo",
  run_id: "r1",
  order_id: "o1",
  unit_id: "assault_1",
  payload: {},
};

describe("preparing events", () => {
  it("normalises typo types, fills id and time once per batch, and writes absent ids as null", () => {
    const [a, b] = prepareEvents(
      [base, { ...base, type: "PATROL_TICK", order_id: undefined, unit_id: undefined }],
      {
        batch: true,
      },
    );
    expect(a?.event.type).toBe("ORDER_CLAIMED");
    expect(isUlid(a?.event.event_id ?? "")).toBe(true);
    expect(a?.event.ts).toBe(b?.event.ts);
    expect(b?.event).toMatchObject({ order_id: null, unit_id: null });
    expect(a).toMatchObject({ givenId: false, givenTs: false });
  });

  it("reports every problem of every event with its index", () => {
    const error = (() => {
      try {
        prepareEvents([base, { ...base, run_id: "" }, { ...base, unit_id: "a\tb", garrison_id: 3 }], {
          batch: true,
        });
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.issues.map((i) => i.path)).toEqual(["$[1].run_id", "$[2].garrison_id", "$[2].unit_id"]);
  });

  it("refuses an empty batch", () => {
    expect(() => prepareEvents([], { batch: true })).toThrow(/at least one event/);
  });
});

describe("recognising a retried event", () => {
  const [first] = prepareEvents([{ ...base, event_id: "e1" }], { batch: false });
  const stored = first?.event;

  it("ignores the time the ledger chose when the retry again leaves ts out", () => {
    const [retry] = prepareEvents([{ ...base, event_id: "e1" }], { batch: false });
    if (!stored || !retry) throw new Error("nothing prepared");
    expect(isSameEvent({ ...stored, ts: "2026-01-01T00:00:00Z" }, retry)).toBe(true);
  });

  it("holds a retry to the ts it sends, and to every other field", () => {
    const [withTs] = prepareEvents([{ ...base, event_id: "e1", ts: "2026-01-01T00:00:01Z" }], {
      batch: false,
    });
    const [otherUnit] = prepareEvents([{ ...base, event_id: "e1", unit_id: "assault_2" }], { batch: false });
    if (!stored || !withTs || !otherUnit) throw new Error("nothing prepared");
    expect(isSameEvent({ ...stored, ts: "2026-01-01T00:00:00Z" }, withTs)).toBe(false);
    expect(isSameEvent(stored, otherUnit)).toBe(false);
  });
});
