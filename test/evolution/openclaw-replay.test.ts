import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/index.js";
import { importOpenclawFile } from "../../src/evolution/openclaw/index.js";
import { EvolutionStore } from "../../src/evolution/store/index.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/evolution");
const SEED = readFileSync(join(FIXTURES, "openclaw_operator_session.json"));

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-replay-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

describe("replay of a handoff bundle", () => {
  it("stores the bundle's envelopes and projections with their ids in a fresh state, skips all on a second replay, restores the aliases", () => {
    const origin = join(tempDir(), "evolution");
    const imported = importOpenclawFile(origin, SEED);
    const bundlePath = join(tempDir(), "bundle.json");
    writeFileSync(bundlePath, readFileSync(imported.reports.latestHandoffBundle));

    const fresh = join(tempDir(), "evolution");
    const replay = importOpenclawFile(fresh, readFileSync(bundlePath));
    expect(replay.input).toBe("handoff_bundle");
    expect(replay.ingest.stored).toBe(2);
    expect(replay.envelope_ids).toEqual(imported.envelope_ids);
    expect(replay.record_ids).toEqual(imported.record_ids);
    expect(replay.unreproduced_record_ids).toEqual([]);
    const store = EvolutionStore.open(fresh);
    expect(store.envelopes().map((s) => s.envelope)).toEqual(
      EvolutionStore.open(origin)
        .envelopes()
        .map((s) => s.envelope),
    );
    expect(lines(join(fresh, "projected_feedback.jsonl"))).toEqual(
      lines(join(origin, "projected_feedback.jsonl")),
    );

    const second = importOpenclawFile(fresh, readFileSync(bundlePath));
    expect(second.ingest).toMatchObject({ stored: 0, skipped: 2 });
    expect(lines(join(fresh, "runtime_event_envelopes.jsonl"))).toHaveLength(2);
    expect(lines(join(fresh, "projected_feedback.jsonl"))).toHaveLength(1);

    for (const alias of [
      "latest_runtime_session_report.json",
      "latest_openclaw_operator_handoff_bundle.json",
    ])
      expect(existsSync(join(fresh, "reports", alias))).toBe(true);
    expect(readFileSync(join(fresh, "reports", "latest_runtime_session_report.json"))).toEqual(
      readFileSync(join(origin, "reports", "latest_runtime_session_report.json")),
    );
    const bundle = JSON.parse(
      readFileSync(join(fresh, "reports", "latest_openclaw_operator_handoff_bundle.json"), "utf8"),
    );
    expect(bundle.handoff.resume_commands.inspect).toBe(
      `ironclaw evolution inspect --state ${fresh} --write-report`,
    );
  });

  it("refuses a bundle whose envelope belongs to another session, naming the field, and writes nothing", () => {
    const origin = join(tempDir(), "evolution");
    const imported = importOpenclawFile(origin, SEED);
    const bundle = JSON.parse(readFileSync(imported.reports.handoffBundle, "utf8"));
    bundle.adapted_envelopes[1].event.session_id = "someone-else";
    const fresh = join(tempDir(), "evolution");
    expect(() => importOpenclawFile(fresh, Buffer.from(JSON.stringify(bundle)))).toThrow(
      "$.adapted_envelopes[1].event.session_id: must be the source artifact's session demo-openclaw-session-001",
    );
    expect(existsSync(fresh)).toBe(false);
  });
});

describe("malformed artifacts", () => {
  type Json = Record<string, unknown>;
  type Artifact = Json & { session: Json; outcome: Json; timeline: Json[] };
  const seed = (): Artifact => JSON.parse(SEED.toString("utf8"));
  const cases: Array<[string, (a: Artifact) => void, string]> = [
    ["a bad outcome status", (a) => (a.outcome.status = "done"), "$.outcome.status"],
    ["a score above 1", (a) => (a.outcome.score = 1.5), "$.outcome.score"],
    ["no session_id", (a) => delete a.session.session_id, "$.session.session_id"],
    ["no task", (a) => delete a.session.task, "$.session.task"],
    ["a checkpoint without step", (a) => delete a.timeline[0]?.step, "$.timeline[0].step"],
    ["a wrong artifact_kind", (a) => (a.artifact_kind = "openclaw_session"), "$.artifact_kind"],
    ["a bad recorded_at", (a) => (a.recorded_at = "yesterday"), "$.recorded_at"],
  ];
  it.each(cases)("refuses %s, naming the field, and writes nothing", (_name, spoil, path) => {
    const artifact = seed();
    spoil(artifact);
    const state = join(tempDir(), "evolution");
    let error: unknown;
    try {
      importOpenclawFile(state, Buffer.from(JSON.stringify(artifact)));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    expect(existsSync(state)).toBe(false);
  });

  it("refuses text that is not JSON at $", () => {
    const state = join(tempDir(), "evolution");
    expect(() => importOpenclawFile(state, Buffer.from("{ nope"))).toThrow(/\$: must be JSON/);
    expect(existsSync(state)).toBe(false);
  });
});
