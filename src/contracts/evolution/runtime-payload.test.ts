import { describe, expect, it } from "vitest";
import { checkValue, toJsonSchema, UNKNOWN_KEY_MESSAGE } from "../registry.js";
import { payloadForm, runtimeEventPayloadContract } from "./runtime-payload.js";

const header = {
  contract_name: "openclaw_appleseed.runtime_event",
  contract_version: "1.0",
  source: "openclaw-local",
};
const event = { event_kind: "session_started", session_id: "s-1", task: "triage" };

const paths = (value: unknown) => {
  const result = checkValue(runtimeEventPayloadContract, value);
  return result.ok ? [] : result.issues.map((i) => `${i.path} ${i.message}`);
};

describe("runtime event payload", () => {
  it("tells the three forms apart by shape", () => {
    expect(payloadForm([])).toBe("list");
    expect(payloadForm({ ...header, events: [] })).toBe("batch");
    expect(payloadForm({ ...header, event })).toBe("envelope");
    expect(payloadForm("text")).toBe("envelope");
  });

  it("reports only the batch's own problem for a batch", () => {
    const { source: _, ...noSource } = header;
    expect(paths({ ...noSource, events: [event] })).toEqual(["$.source is required"]);
  });

  it("reports only the envelope's own problem for an envelope", () => {
    expect(paths({ ...header, recorded_at: "2026-03-13T18:22:41Z", event: { ...event, task: "" } })).toEqual([
      "$.event.task must not be empty",
    ]);
  });

  it("reports a list item's problem at its index", () => {
    expect(paths([{ ...header, event }, { ...header }])).toEqual([expect.stringMatching(/^\$\[1\]\.event /)]);
  });

  it("returns the payload unchanged when it is valid, keys the seed does not name included", () => {
    const batch = {
      ...header,
      metadata: { operator: "x" },
      events: [{ ...event, trace: "t-1" }],
      host: "h1",
    };
    expect(checkValue(runtimeEventPayloadContract, batch)).toEqual({
      ok: true,
      value: batch,
      warnings: [
        { path: "$.events[0].trace", code: "unknown_key", message: UNKNOWN_KEY_MESSAGE },
        { path: "$.host", code: "unknown_key", message: UNKNOWN_KEY_MESSAGE },
      ],
    });
  });

  it("exports a JSON Schema offering the three forms", () => {
    const schema = toJsonSchema(runtimeEventPayloadContract);
    expect(schema.anyOf).toHaveLength(3);
  });
});
