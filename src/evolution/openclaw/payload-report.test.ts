import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvolutionStore } from "../store/index.js";
import { buildPayloadReport } from "./payload-report.js";

const FIXTURES = join(import.meta.dirname, "../../../test/fixtures/evolution");
const read = (name: string) => readFileSync(join(FIXTURES, name));
const header = {
  contract_name: "openclaw_appleseed.runtime_event",
  contract_version: "1.0",
  source: "openclaw-local",
};
const feedback = (session: string, score: number) => ({
  ...header,
  recorded_at: "2026-03-13T18:22:41+00:00",
  event: { event_kind: "session_feedback", session_id: session, task: "t", status: "failure", score },
});
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

describe("buildPayloadReport", () => {
  it("gives the same report for the same batch every time, reading no clock", () => {
    const first = buildPayloadReport([read("sample_batch.json")]);
    expect(buildPayloadReport([read("sample_batch.json")])).toEqual(first);
    expect(first.evidence.raw_envelope_count).toBe(2);
    expect(first.evidence.projected_feedback_count).toBe(1);
  });

  it("completes a payload with the ids an ingest of the same bytes gives", () => {
    const dir = mkdtempSync(join(tmpdir(), "ironclaw-report-"));
    try {
      const ingested = EvolutionStore.open(dir).ingest(read("sample_batch.json"));
      const report = buildPayloadReport([read("sample_batch.json")]);
      expect(report.evidence.raw_envelopes.map((e) => e.envelope_id)).toEqual(
        ingested.envelopes.map((e) => e.envelope_id),
      );
      expect(report.evidence.projected_feedback.map((r) => r.record_id)).toEqual(
        ingested.envelopes.flatMap((e) => e.record_id ?? []),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses files holding several sessions unless one is named, and reports the one named", () => {
    const list = bytes([feedback("s-1", 0.1), feedback("s-2", 0.9)]);
    expect(() => buildPayloadReport([list])).toThrow(
      "session: the files hold 2 sessions (s-1, s-2): name one",
    );
    expect(buildPayloadReport([list], "s-2").raw_session_outcome.score).toBe(0.9);
    expect(() => buildPayloadReport([list], "s-3")).toThrow("no event of session s-3");
  });

  it("counts an envelope sent in two files once, as ingest would", () => {
    const envelope = { ...feedback("s-1", 0.3), envelope_id: "e-1" };
    const report = buildPayloadReport([bytes(envelope), bytes([envelope])]);
    expect(report.raw_session_outcome.feedback_event_count).toBe(1);
  });

  it("refuses a bad payload with the field named", () => {
    expect(() => buildPayloadReport([bytes(feedback("s-1", 2))])).toThrow("$.event.score");
  });
});
