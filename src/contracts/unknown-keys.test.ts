import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ledgerEventBatchForms } from "./command/index.js";
import { runtimeEventPayloadSchema } from "./evolution/index.js";
import { findUnknownKeys } from "./unknown-keys.js";

const event = z.looseObject({ kind: z.literal("a"), score: z.number().optional() });
const other = z.looseObject({ kind: z.literal("b"), note: z.string() });
const tagged = z.discriminatedUnion("kind", [event, other]);

describe("findUnknownKeys", () => {
  it("finds keys at every depth, through arrays, optionals and nullables", () => {
    const schema = z.looseObject({
      a: z.looseObject({ b: z.array(z.looseObject({ c: z.string() })) }).nullable(),
      d: z.looseObject({ e: z.string() }).optional(),
    });
    const value = { a: { b: [{ c: "x" }, { c: "y", typo: 1 }] }, d: { e: "z", f: 2 }, g: 3 };
    expect(findUnknownKeys(schema, value)).toEqual([["a", "b", 1, "typo"], ["d", "f"], ["g"]]);
  });

  it("reports nothing inside a free-form record", () => {
    const schema = z.looseObject({ payload: z.record(z.string(), z.unknown()) });
    expect(findUnknownKeys(schema, { payload: { anything: { at: "all" } } })).toEqual([]);
  });

  it("picks a tagged union's member by its tag, even when the value is invalid", () => {
    expect(findUnknownKeys(tagged, { kind: "a", scor: 0.5 })).toEqual([["scor"]]);
    expect(findUnknownKeys(tagged, { kind: "b", scor: 0.5 })).toEqual([["scor"]]);
  });

  it("reports keys under no member when no member of a plain union fits", () => {
    const union = z.union([z.looseObject({ a: z.string() }), z.looseObject({ b: z.number() })]);
    expect(findUnknownKeys(union, { a: "x", extra: 1 })).toEqual([["extra"]]);
    expect(findUnknownKeys(union, { a: 1, extra: 1 })).toEqual([]);
  });

  it("reads a form-picking transform by the shape after it", () => {
    const header = {
      contract_name: "openclaw_appleseed.runtime_event",
      contract_version: "1.0",
      source: "s",
    };
    const batch = {
      ...header,
      host: "h",
      events: [{ event_kind: "session_started", session_id: "s", task: "t", x: 1 }],
    };
    expect(findUnknownKeys(runtimeEventPayloadSchema, batch)).toEqual([["host"], ["events", 0, "x"]]);
  });

  it("finds the keys of a bare-array ledger batch at the writer's own paths", () => {
    const ev = {
      type: "PATROL_TICK",
      garrison_id: "local",
      theater_id: null,
      run_id: null,
      payload: {},
      via: "x",
    };
    expect(findUnknownKeys(ledgerEventBatchForms, [ev])).toEqual([[0, "via"]]);
    expect(findUnknownKeys(ledgerEventBatchForms, { events: [ev] })).toEqual([["events", 0, "via"]]);
  });

  it("leaves strict objects to their own error", () => {
    expect(findUnknownKeys(z.strictObject({ a: z.string() }), { a: "x", b: 1 })).toEqual([]);
  });
});
