import { describe, expect, it } from "vitest";
import { checkValue, runtimeEventPayloadContract } from "../../contracts/index.js";
import { ValidationError } from "../../core/index.js";
import { readPayload } from "./payload-intake.js";

const header = {
  contract_name: "openclaw_appleseed.runtime_event",
  contract_version: "1.0",
  source: "openclaw",
};
const started = { event_kind: "session_started", session_id: "s1", task: "fix the build" };

/** Bad payloads of every form, each with problems at several depths. */
const bad: Record<string, unknown> = {
  "an envelope with a wrong contract and no task": {
    ...header,
    contract_name: "x",
    event: { ...started, task: "" },
  },
  "a list with a bad score and an unknown kind": [
    { ...header, event: { ...started, event_kind: "session_feedback", status: "success", score: 2 } },
    { ...header, event: { ...started, event_kind: "session_ended" } },
  ],
  "a batch without a source and with a bad time": {
    ...header,
    source: undefined,
    events: [started, { ...started, occurred_at: "yesterday" }],
  },
  "a batch whose events is not an array": { ...header, events: {} },
};

describe("readPayload", () => {
  it.each(Object.entries(bad))(
    "refuses %s with exactly the issues the payload contract reports",
    (_, value) => {
      const expected = checkValue(runtimeEventPayloadContract, value);
      expect(expected.ok).toBe(false);
      let refusal: unknown;
      try {
        readPayload(Buffer.from(JSON.stringify(value)), new Date("2026-11-01T00:00:00Z"));
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ValidationError);
      expect((refusal as ValidationError).contract).toBe(runtimeEventPayloadContract.kind);
      expect((refusal as ValidationError).issues).toEqual(expected.ok ? [] : expected.issues);
    },
  );
});
