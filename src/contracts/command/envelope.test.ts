import { describe, expect, it } from "vitest";
import { z } from "zod";
import { envelopeSchema, fail, genericEnvelopeSchema, ok } from "./envelope.js";

const runData = z.strictObject({ run_id: z.string() });

describe("ok and fail", () => {
  it("ok wraps data with a null error", () => {
    expect(ok({ run_id: "r1" })).toEqual({ ok: true, data: { run_id: "r1" }, error: null });
  });

  it("fail carries code and message, and details only when given", () => {
    expect(fail("not_found", "run r1 not found")).toEqual({
      ok: false,
      data: null,
      error: { code: "not_found", message: "run r1 not found" },
    });
    expect(Object.keys(fail("conflict", "x").error ?? {})).toEqual(["code", "message"]);
    expect(fail("validation_failed", "1 problem", { issues: [] }).error?.details).toEqual({ issues: [] });
  });

  it("builds envelopes that the envelope schemas accept", () => {
    expect(envelopeSchema(runData).safeParse(ok({ run_id: "r1" })).success).toBe(true);
    expect(envelopeSchema(runData).safeParse(fail("internal", "boom")).success).toBe(true);
    expect(genericEnvelopeSchema.safeParse(fail("unavailable", "down", { retry_after_s: 5 })).success).toBe(
      true,
    );
  });
});

describe("envelopeSchema", () => {
  it("checks data against the given schema only when ok is true", () => {
    const result = envelopeSchema(runData).safeParse({ ok: true, data: { run: 1 }, error: null });
    expect(result.error?.issues.map((i) => i.path.join("."))).toContain("data");
  });

  it("reports a missing or non-boolean ok at $.ok", () => {
    for (const value of [
      { data: {}, error: null },
      { ok: "yes", data: {}, error: null },
    ]) {
      const issues = envelopeSchema(runData).safeParse(value).error?.issues ?? [];
      expect(issues.map((i) => i.path)).toEqual([["ok"]]);
    }
  });
});
