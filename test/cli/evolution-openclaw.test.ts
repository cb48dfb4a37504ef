import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/evolution");
const SEED = join(FIXTURES, "openclaw_operator_session.json");
const home = mkdtempSync(join(tmpdir(), "ironclaw-openclaw-cli-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = { IRONCLAW_HOME: home };

// Each spawn starts node with the TypeScript loader: seconds on a busy machine, so the limit is generous.
describe("ironclaw evolution openclaw-import|report", { timeout: 240_000 }, () => {
  it("imports the seed's artifact with the real CLI, then replays the handoff it names into another state", async () => {
    const state = join(home, "first");
    const imported = await runIronclaw(
      ["evolution", "openclaw-import", "--file", SEED, "--state", state, "--json"],
      { env },
    );
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const result = JSON.parse(imported.stdout);
    expect(result).toMatchObject({ input: "operator_session", session_id: "demo-openclaw-session-001" });
    expect(result.ingest.stored).toBe(2);

    const handoff = JSON.parse(readFileSync(result.reports.handoff, "utf8"));
    // The exact resume command, run as written (without its own shell), replays into IRONCLAW_HOME/evolution.
    const replayArgs = (handoff.resume_commands.replay_bundle as string).split(" ").slice(1);
    const replay = await runIronclawInProcess(replayArgs, { env });
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(
      "replayed bundle of session demo-openclaw-session-001: 2 stored, 0 skipped",
    );
    const again = await runIronclawInProcess(replayArgs, { env });
    expect(again.stdout).toContain("0 stored, 2 skipped as duplicates");
    expect(
      existsSync(join(home, "evolution", "reports", "latest_openclaw_operator_handoff_bundle.json")),
    ).toBe(true);
  });

  it("refuses a malformed artifact naming the field, exit 1, and writes nothing", async () => {
    const state = join(home, "refused");
    const bad = join(FIXTURES, "openclaw", "golden", "runtime_session_report_demo-openclaw-session-001.json");
    const out = await runIronclawInProcess(
      ["evolution", "openclaw-import", "--file", bad, "--state", state],
      { env },
    );
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("$.artifact_kind");
    expect(existsSync(state)).toBe(false);
  });

  it("reports a session from a batch payload as JSON and markdown, and writes it with --write-report", async () => {
    const state = join(home, "report");
    const batch = join(FIXTURES, "sample_batch.json");
    const json = await runIronclawInProcess(["evolution", "report", "--file", batch, "--format", "json"], {
      env,
    });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ report_kind: "runtime_session_report", session_id: "demo-session-001" });
    expect(report.raw_session_outcome).toMatchObject({ status: "failure", score: 0.2 });
    const again = await runIronclawInProcess(["evolution", "report", "--file", batch, "--format", "json"], {
      env,
    });
    expect(again.stdout).toBe(json.stdout);
    const md = await runIronclawInProcess(
      ["evolution", "report", "--file", batch, "--format", "md", "--write-report", "--state", state],
      { env },
    );
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("# Runtime session report: demo-session-001");
    const written = join(state, "reports", "runtime_session_report_demo-session-001.md");
    expect(readFileSync(written, "utf8")).toBe(`${md.stdout.trimEnd()}\n`);
  });
});
