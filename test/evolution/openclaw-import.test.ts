import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importOpenclawFile, sessionReportPaths } from "../../src/evolution/openclaw/index.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/evolution");
const SEED = join(FIXTURES, "openclaw_operator_session.json");
const VARIANTS = ["no-outcome", "several-checkpoints", "blocked-partial"].map((n) =>
  join(FIXTURES, "openclaw", `${n}.json`),
);

const dirs: string[] = [];
function freshState(): string {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-openclaw-"));
  dirs.push(dir);
  return join(dir, "evolution");
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every file of a state directory with its bytes, the state's own path written as <state>. */
function snapshot(stateDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${rel}/`);
      else if (!entry.name.startsWith("."))
        out[rel] = readFileSync(join(dir, entry.name), "utf8").replaceAll(stateDir, "<state>");
    }
  };
  walk(stateDir, "");
  return out;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("openclaw-import of an operator-session artifact", () => {
  it("adapts the seed's artifact into a session_started carrying the steps and a session_feedback, with the timeline kept", () => {
    const state = freshState();
    const result = importOpenclawFile(state, readFileSync(SEED));
    expect(result.ingest.stored).toBe(2);
    expect(result.record_ids).toHaveLength(1);
    const report = readJson(result.reports.importReport);
    const [started, feedback] = report.adapted_envelopes;
    expect(started.event).toMatchObject({
      event_kind: "session_started",
      occurred_at: "2026-03-13T18:20:00+00:00",
      steps: ["inspect rollback risk"],
      selected_skill_ids: ["code_review"],
      missing_capabilities: ["database migrations"],
    });
    expect(feedback.event).toMatchObject({ event_kind: "session_feedback", status: "failure", score: 0.2 });
    expect(feedback.event.metadata).toMatchObject({
      operator: "local-demo",
      last_checkpoint: { checkpoint_id: "cp-risk", status: "blocked" },
      handoff: { next_action: "Verify lock-time risk before promotion." },
    });
    expect(started.metadata.openclaw_import).toMatchObject({
      checkpoint_count: 1,
      last_checkpoint_id: "cp-risk",
    });
    expect(report.projected_feedback[0]).toMatchObject({
      record_id: result.record_ids[0],
      source_envelope_id: feedback.envelope_id,
      source_event_id: feedback.event.event_id,
    });
  });

  it("matches the golden import report and runtime session report of the seed's artifact", () => {
    const state = freshState();
    importOpenclawFile(state, readFileSync(SEED));
    const files = snapshot(state);
    const golden = join(FIXTURES, "openclaw", "golden");
    for (const name of readdirSync(golden))
      expect(files[`reports/${name}`], name).toBe(readFileSync(join(golden, name), "utf8"));
  });

  it.each([SEED, ...VARIANTS])(
    "re-running the import of %s rewrites byte-identical files, in the same or a fresh state",
    (file) => {
      const bytes = readFileSync(file);
      const state = freshState();
      importOpenclawFile(state, bytes);
      const first = snapshot(state);
      const again = importOpenclawFile(state, bytes);
      expect(again.ingest.skipped).toBe(again.envelope_ids.length);
      expect(snapshot(state)).toEqual(first);
      const other = freshState();
      importOpenclawFile(other, bytes);
      expect(snapshot(other)).toEqual(first);
    },
  );

  it("adapts an artifact without outcome into session_started alone, awaiting feedback", () => {
    const state = freshState();
    const result = importOpenclawFile(state, readFileSync(VARIANTS[0] as string));
    expect(result.envelope_ids).toHaveLength(1);
    expect(result.record_ids).toEqual([]);
    const handoff = readJson(result.reports.handoff);
    expect(handoff).toMatchObject({
      session_state: "awaiting_feedback",
      assignee: "day-shift",
      notes: ["Ask about weekend escalation.", "Link the dashboard."],
    });
    const report = readJson(result.reports.runtimeReportJson);
    expect(report.raw_session_outcome.status).toBe("incomplete");
    expect(report.promotion_risk_notes[0]).toMatch(/No session_feedback/);
  });

  it("keeps several checkpoints in order as steps and the last one as last checkpoint", () => {
    const state = freshState();
    const result = importOpenclawFile(state, readFileSync(VARIANTS[1] as string));
    const [started] = readJson(result.reports.importReport).adapted_envelopes;
    expect(started.event.steps).toEqual([
      "read the payments API changelog",
      "port the charge endpoint",
      "run the contract tests",
    ]);
    expect(started.event.selected_skill_ids).toEqual(["code_review", "api_migration", "test_writing"]);
    expect(
      started.event.metadata.checkpoint_timeline.map((c: { checkpoint_id: string }) => c.checkpoint_id),
    ).toEqual(["cp-1", "cp-2", "cp-3"]);
    expect(readJson(result.reports.handoff).last_checkpoint.checkpoint_id).toBe("cp-3");
    const signals = readJson(result.reports.runtimeReportJson).projected_evolution_signals;
    expect(
      signals.map((s: { signal_kind: string; target: string }) => `${s.signal_kind}:${s.target}`),
    ).toEqual([
      "skill_reinforced:api_migration",
      "skill_reinforced:code_review",
      "skill_reinforced:test_writing",
    ]);
  });

  it("reports a blocked, partial session with its gap signals and the blocked checkpoint as a risk", () => {
    const state = freshState();
    const result = importOpenclawFile(state, readFileSync(VARIANTS[2] as string));
    const report = readJson(result.reports.runtimeReportJson);
    expect(report.raw_session_outcome).toMatchObject({ status: "partial", score: 0.4 });
    expect(report.missing_capabilities).toEqual(["vault write access", "secret rotation"]);
    expect(report.projected_evolution_signals.map((s: { target: string }) => s.target)).toEqual([
      "secret rotation",
      "vault write access",
      "ops_runbook",
    ]);
    expect(report.promotion_risk_notes.join("\n")).toMatch(/blocked checkpoint \(cp-vault/);
    expect(readFileSync(result.reports.runtimeReportMd, "utf8")).toContain(
      "- Last checkpoint: cp-vault (blocked)",
    );
  });

  it("writes the latest aliases as copies of the session's report and bundle", () => {
    const state = freshState();
    const result = importOpenclawFile(state, readFileSync(SEED));
    expect(readFileSync(result.reports.latestRuntimeReport)).toEqual(
      readFileSync(result.reports.runtimeReportJson),
    );
    expect(readFileSync(result.reports.latestHandoffBundle)).toEqual(
      readFileSync(result.reports.handoffBundle),
    );
  });

  it("names the report files of a session id holding ../ and / inside reports/, encoded", () => {
    const state = freshState();
    const result = importOpenclawFile(
      state,
      readFileSync(join(FIXTURES, "openclaw", "traversal-session.json")),
    );
    const segment = `_${Buffer.from("../../escape/me").toString("hex")}`;
    expect(result.reports).toEqual(sessionReportPaths(state, "../../escape/me"));
    expect(result.reports.importReport).toBe(join(state, "reports", `openclaw_import_${segment}.json`));
    expect(readdirSync(join(state, "reports")).every((n) => /^[A-Za-z0-9._-]+$/.test(n))).toBe(true);
    expect(existsSync(join(state, "..", "escape"))).toBe(false);
    expect(readJson(result.reports.handoff).session_id).toBe("../../escape/me");
  });
});
