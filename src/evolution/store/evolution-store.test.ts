import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  EVOLUTION_FIXTURES,
  fixtureBytes,
  jsonLines,
  SEED_PAYLOADS,
  snapshotState,
} from "../../../test/evolution/state-snapshot.js";
import { projectedFeedbackRecordSchema } from "../../contracts/index.js";
import { canonicalJson, sha256Hex, ValidationError } from "../../core/index.js";
import { EvolutionStore } from "./evolution-store.js";
import { STATE_FILES } from "./state-files.js";

const AT = new Date("2026-03-13T18:30:00.000Z");
const now = () => AT;
const fresh = () => mkdtempSync(join(tmpdir(), "evolution-store-"));

describe("ingesting the seed's example payloads", () => {
  it("stores each envelope and projects each session_feedback with its lineage", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    const results = SEED_PAYLOADS.map((name) => store.ingest(fixtureBytes(name), { now }));
    expect(results.map((r) => [r.payload_form, r.stored, r.skipped, r.projected])).toEqual([
      ["envelope", 1, 0, 1],
      ["batch", 2, 0, 1],
      ["list", 2, 0, 1],
    ]);
    const projected = jsonLines(join(dir, STATE_FILES.projected));
    expect(projected).toHaveLength(3);
    for (const record of projected)
      expect(projectedFeedbackRecordSchema.safeParse(record).success).toBe(true);
    expect(projected[0]).toEqual({
      record_id: results[0]?.envelopes[0]?.record_id,
      session_id: "demo-session-001",
      task: "review postgres migration rollback safety",
      status: "failure",
      score: 0.2,
      comment: "missed rollback coverage",
      selected_skill_ids: ["code_review"],
      missing_capabilities: ["database migrations"],
      steps: [],
      metadata: { trace_id: "demo-trace-001" },
      occurred_at: "2026-03-13T18:22:39+00:00",
      contract_name: "openclaw_appleseed.runtime_event",
      contract_version: "1.0",
      source_envelope_id: "9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70",
      source_event_id: "7d4f2fda-36bc-4c47-b1d3-dc1cb8ef04e0",
      projected_at: AT.toISOString(),
    });
    // The batch's session_started is raw evidence only; its feedback got generated ids and the receive time.
    const batch = results[1]?.envelopes ?? [];
    expect(batch.map((e) => [e.event_kind, e.record_id === null])).toEqual([
      ["session_started", true],
      ["session_feedback", false],
    ]);
    expect(projected[1]).toMatchObject({ occurred_at: AT.toISOString(), comment: null, steps: [] });
  });

  it("keeps every received payload byte for byte, and each envelope line names it", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    for (const name of SEED_PAYLOADS) {
      const bytes = fixtureBytes(name);
      const result = store.ingest(bytes, { now });
      expect(result.payload_sha256).toBe(sha256Hex(bytes));
      expect(store.receivedPayload(result.payload_sha256)).toEqual(bytes);
    }
    const lines = jsonLines(join(dir, STATE_FILES.envelopes));
    expect(lines).toHaveLength(5);
    // The first line of each payload carries its whole text; the others name it by its sha256.
    const texts = lines.map((line) => (line.received as { payload_text: string | null }).payload_text);
    expect(texts.map((text) => text !== null)).toEqual([true, true, false, true, false]);
    expect(Buffer.from(texts[1] ?? "", "utf8")).toEqual(fixtureBytes("sample_batch.json"));
    const batch = JSON.parse(fixtureBytes("sample_batch.json").toString("utf8"));
    // A batch event's own envelope: the batch header around that event, as received.
    expect(lines[1]?.raw).toEqual({ ...batch, events: undefined, event: batch.events[0] });
    expect(lines[1]?.received).toMatchObject({ payload_form: "batch", payload_index: 0, submitted_by: null });
    // Lines are canonical JSON, one per envelope.
    const text = readFileSync(join(dir, STATE_FILES.envelopes), "utf8").split("\n");
    expect(text[0]).toBe(canonicalJson(lines[0]));
  });
});

describe("duplicates", () => {
  it("skips a payload sent again, reports why, and changes no file", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    for (const name of SEED_PAYLOADS) store.ingest(fixtureBytes(name), { now });
    const before = snapshotState(dir);
    for (const name of SEED_PAYLOADS) {
      const again = store.ingest(fixtureBytes(name), { now: () => new Date("2027-01-01T00:00:00Z") });
      expect(again.stored).toBe(0);
      expect(again.projected).toBe(0);
      expect(
        again.envelopes.every((e) => e.outcome === "skipped" && e.reason?.includes("already stored")),
      ).toBe(true);
    }
    expect(snapshotState(dir)).toEqual(before);
  });

  it("skips an envelope whose event_id is stored under another envelope_id, never projecting it twice", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    store.ingest(fixtureBytes("seed_envelope.json"), { now });
    const copy = JSON.parse(fixtureBytes("seed_envelope.json").toString("utf8"));
    copy.envelope_id = "another-envelope";
    const result = store.ingest(Buffer.from(JSON.stringify(copy)), { now });
    expect(result.envelopes[0]).toMatchObject({
      outcome: "skipped",
      reason: "event_id 7d4f2fda-36bc-4c47-b1d3-dc1cb8ef04e0 is already stored",
    });
    expect(jsonLines(join(dir, STATE_FILES.projected))).toHaveLength(1);
  });

  it("stores one of two envelopes with the same id inside one list", () => {
    const dir = fresh();
    const envelope = JSON.parse(fixtureBytes("seed_envelope.json").toString("utf8"));
    const result = EvolutionStore.open(dir).ingest(Buffer.from(JSON.stringify([envelope, envelope])), {
      now,
    });
    expect([result.stored, result.skipped, result.projected]).toEqual([1, 1, 1]);
  });
});

describe("malformed payloads", () => {
  const expected: Record<string, string> = {
    "bad-status.json": "$.event.status: must be one of success, failure, partial, cancelled, unknown",
    "score-above-one.json": "$.event.score: must be between 0.0 and 1.0",
    "missing-session-id.json": "$.event.session_id: is required",
    "missing-task.json": "$.event.task: is required",
    "unknown-event-kind.json": "$.event.event_kind: must be one of session_started, session_feedback",
    "wrong-contract-name.json": "$.contract_name: must be openclaw_appleseed.runtime_event",
    "wrong-contract-version.json": "$.contract_version: must be 1.0",
    "batch-second-score-negative.json": "$.events[1].score: must be between 0.0 and 1.0",
  };

  it("has a fixture for each case", () => {
    expect(readdirSync(join(EVOLUTION_FIXTURES, "malformed")).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))(
    "refuses %s whole, naming the field and rule, storing nothing",
    (name, problem) => {
      const dir = fresh();
      const store = EvolutionStore.open(dir);
      store.ingest(fixtureBytes("envelope_list.json"), { now });
      const before = snapshotState(dir);
      let refusal: unknown;
      try {
        store.ingest(fixtureBytes(`malformed/${name}`), { now });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(ValidationError);
      const issues = (refusal as ValidationError).issues.map((i) => `${i.path}: ${i.message}`);
      expect(issues).toEqual([problem]);
      expect(snapshotState(dir)).toEqual(before);
    },
  );

  it("lists every problem of a payload at once", () => {
    const list = [
      JSON.parse(fixtureBytes("malformed/bad-status.json").toString("utf8")),
      JSON.parse(fixtureBytes("malformed/missing-task.json").toString("utf8")),
    ];
    const store = EvolutionStore.open(fresh());
    let refusal: unknown;
    try {
      store.ingest(Buffer.from(JSON.stringify(list)));
    } catch (error) {
      refusal = error;
    }
    expect((refusal as ValidationError).issues.map((i) => i.path)).toEqual([
      "$[0].event.status",
      "$[1].event.task",
    ]);
  });

  it("refuses bytes that are not UTF-8 JSON at $", () => {
    const store = EvolutionStore.open(fresh());
    expect(() => store.ingest(Buffer.from([0x7b, 0xff, 0x7d]))).toThrow("$: must be UTF-8 text");
    expect(() => store.ingest(Buffer.from("{not json"))).toThrow(/\$: must be JSON/);
  });
});

describe("recovery on open", () => {
  it("cuts a torn last line away and keeps every complete one", () => {
    const dir = fresh();
    EvolutionStore.open(dir).ingest(fixtureBytes("envelope_list.json"), { now });
    const path = join(dir, STATE_FILES.envelopes);
    const whole = readFileSync(path);
    appendFileSync(path, '{"envelope":{"contract_na');
    const store = EvolutionStore.open(dir);
    expect(store.recovery.tornBytes.envelopes).toBe(25);
    expect(readFileSync(path)).toEqual(whole);
    expect(store.envelopes()).toHaveLength(2);
  });

  it("leaves a line still being written alone when only reading, and reads it once it is whole", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    store.ingest(fixtureBytes("seed_envelope.json"), { now });
    const path = join(dir, STATE_FILES.envelopes);
    const lines = readFileSync(path, "utf8");
    const second = EvolutionStore.open(fresh());
    second.ingest(fixtureBytes("envelope_list.json"), { now });
    const next = readFileSync(join(second.stateDir, STATE_FILES.envelopes), "utf8").split("\n")[0] ?? "";
    appendFileSync(path, next.slice(0, 40));
    expect(store.envelopes()).toHaveLength(1);
    expect(readFileSync(path, "utf8")).toBe(lines + next.slice(0, 40));
    appendFileSync(path, `${next.slice(40)}\n`);
    expect(store.envelopes().map((s) => s.envelope.envelope_id)).toEqual([
      "9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70",
      "1c0d3f62-2a51-4c8e-9d0b-6f1f0c7a5e01",
    ]);
  });

  it("projects a stored feedback envelope whose projection a crash cut off, exactly as the ingest would have", () => {
    const complete = fresh();
    EvolutionStore.open(complete).ingest(fixtureBytes("sample_batch.json"), { now });
    const crashed = fresh();
    EvolutionStore.open(crashed);
    // The state a crash between the envelope lines and the projection leaves: payload and envelopes, no projection.
    writeFileSync(join(crashed, STATE_FILES.envelopes), readFileSync(join(complete, STATE_FILES.envelopes)));
    const reopened = EvolutionStore.open(crashed);
    expect(reopened.recovery.projected).toBe(1);
    expect(snapshotState(crashed)).toEqual(snapshotState(complete));
    // Opening again finds nothing more to do: re-projection is idempotent.
    expect(EvolutionStore.open(crashed).recovery.projected).toBe(0);
    expect(snapshotState(crashed)).toEqual(snapshotState(complete));
  });
});

describe("direct records (events.jsonl)", () => {
  it("records a routed session and direct feedback once each, and the session belongs to its user", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    const session = {
      record_kind: "routed_session" as const,
      session_id: "chat-1",
      task: "plan the migration",
      selected_skill_ids: ["code_review"],
      tools: ["memory_search"],
      user_id: "alice",
    };
    const first = store.recordDirect(session, AT);
    expect(first.stored).toBe(true);
    expect(store.recordDirect(session, AT).stored).toBe(false);
    const feedback = store.recordDirect(
      {
        record_kind: "direct_feedback",
        session_id: "chat-1",
        task: "plan the migration",
        status: "success",
        score: 1,
      },
      AT,
    );
    expect(feedback.record).toMatchObject({ comment: null, user_id: null, occurred_at: AT.toISOString() });
    expect(jsonLines(join(dir, STATE_FILES.events)).map((r) => r.record_kind)).toEqual([
      "routed_session",
      "direct_feedback",
    ]);
    expect(store.sessionOwner("chat-1")).toBe("alice");
  });

  it("refuses feedback with a score outside [0, 1], naming the field", () => {
    const store = EvolutionStore.open(fresh());
    expect(() =>
      store.recordDirect({
        record_kind: "direct_feedback",
        session_id: "s",
        task: "t",
        status: "success",
        score: 2,
      }),
    ).toThrow("$.score: must be between 0.0 and 1.0");
  });
});

describe("ownership", () => {
  it("lets a user write new sessions and their own, refuses another user's, and lets an admin write any", () => {
    const store = EvolutionStore.open(fresh());
    const alice = { userId: "alice", admin: false };
    store.ingest(fixtureBytes("seed_envelope.json"), { submitter: alice, now });
    expect(store.sessionOwner("demo-session-001")).toBe("alice");
    expect(store.ingest(fixtureBytes("sample_batch.json"), { submitter: alice, now }).stored).toBe(2);
    expect(() =>
      store.ingest(fixtureBytes("sample_batch.json"), { submitter: { userId: "bob", admin: false } }),
    ).toThrow("$.events[0].session_id: session demo-session-001 belongs to another user");
    const byAdmin = store.ingest(fixtureBytes("envelope_list.json"), {
      submitter: { userId: "root", admin: true },
    });
    expect(byAdmin.stored).toBe(2);
  });
});

describe("inspect", () => {
  it("shows each raw envelope beside its projection or as raw evidence only, and writes the same report twice", () => {
    const dir = fresh();
    const store = EvolutionStore.open(dir);
    for (const name of SEED_PAYLOADS) store.ingest(fixtureBytes(name), { now });
    const report = store.inspect();
    expect(report.counts).toEqual({ envelopes: 5, projected: 3, raw_evidence_only: 2, not_yet_projected: 0 });
    expect(report.entries.map((e) => e.projection_status)).toEqual([
      "projected",
      "raw evidence only",
      "projected",
      "raw evidence only",
      "projected",
    ]);
    expect(report.entries[0]?.projection?.source_envelope_id).toBe(report.entries[0]?.envelope_id);
    const path = store.writeInspectReport();
    expect(path).toBe(join(dir, "reports", "latest_inspect_report.json"));
    const first = readFileSync(path);
    EvolutionStore.open(dir).writeInspectReport();
    expect(readFileSync(path)).toEqual(first);
    expect(first.toString("utf8")).toBe(`${canonicalJson(report)}\n`);
  });
});
