import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVOLUTION_FIXTURES, fixtureBytes, snapshotState } from "../evolution/state-snapshot.js";
import { runIronclawInProcess } from "./run-cli.js";

const home = () => mkdtempSync(join(tmpdir(), "ironclaw-evolution-cli-"));

describe("ironclaw evolution ingest", () => {
  it("stores a file under IRONCLAW_HOME/evolution and prints what it stored, skipped and projected", async () => {
    const env = { IRONCLAW_HOME: home() };
    const file = join(EVOLUTION_FIXTURES, "sample_batch.json");
    const first = await runIronclawInProcess(["evolution", "ingest", file], { env });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^stored 2, skipped 0, projected 1 \(batch, sha256 [0-9a-f]{64}\)$/m);
    const again = await runIronclawInProcess(["evolution", "ingest", file], { env });
    expect(again.stdout).toMatch(/^stored 0, skipped 2, projected 0 /m);
    expect(again.stdout).toMatch(/^ {2}skipped [0-9a-f-]{36}: envelope_id [0-9a-f-]{36} is already stored$/m);
    const lines = readFileSync(join(env.IRONCLAW_HOME, "evolution", "runtime_event_envelopes.jsonl"), "utf8");
    expect(lines.trim().split("\n")).toHaveLength(2);
  });

  it("reads stdin for - into --state, and answers --json with the result", async () => {
    const state = join(home(), "elsewhere");
    const result = await runIronclawInProcess(["evolution", "ingest", "-", "--state", state, "--json"], {
      stdin: fixtureBytes("seed_envelope.json").toString("utf8"),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ stored: 1, projected: 1, payload_form: "envelope" });
  });

  it("refuses a malformed payload with exit 1, naming the field and rule, and stores nothing", async () => {
    const state = join(home(), "evolution");
    await runIronclawInProcess([
      "evolution",
      "ingest",
      join(EVOLUTION_FIXTURES, "seed_envelope.json"),
      "--state",
      state,
    ]);
    const before = snapshotState(state);
    const result = await runIronclawInProcess([
      "evolution",
      "ingest",
      join(EVOLUTION_FIXTURES, "malformed", "score-above-one.json"),
      "--state",
      state,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("$.event.score: must be between 0.0 and 1.0");
    expect(snapshotState(state)).toEqual(before);
  });
});

describe("ironclaw evolution ingest, a file that cannot be read", () => {
  it("fails with exit 1 naming the file", async () => {
    const result = await runIronclawInProcess([
      "evolution",
      "ingest",
      "no-such-payload.json",
      "--state",
      home(),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("file: cannot read no-such-payload.json: ENOENT");
  });
});

describe("ironclaw evolution inspect", () => {
  it("lists each envelope beside its projection and writes the same report on every run", async () => {
    const env = { IRONCLAW_HOME: home() };
    for (const name of ["seed_envelope.json", "sample_batch.json"])
      await runIronclawInProcess(["evolution", "ingest", join(EVOLUTION_FIXTURES, name)], { env });
    const shown = await runIronclawInProcess(["evolution", "inspect", "--write-report"], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("3 envelopes: 2 projected, 1 raw evidence only");
    expect(shown.stdout).toMatch(
      /9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70 {2}session_feedback +demo-session-001 {2}→ projected /,
    );
    expect(shown.stdout).toMatch(/session_started +demo-session-001 {2}→ raw evidence only/);
    const path = join(env.IRONCLAW_HOME, "evolution", "reports", "latest_inspect_report.json");
    expect(shown.stdout).toContain(`wrote ${path}`);
    const written = readFileSync(path, "utf8");
    const json = await runIronclawInProcess(["evolution", "inspect", "--json", "--write-report"], { env });
    expect(`${json.stdout}`).toBe(written);
    expect(readFileSync(path, "utf8")).toBe(written);
  });
});
