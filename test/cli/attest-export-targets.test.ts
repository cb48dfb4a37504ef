import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runEvidenceDirOf } from "../../src/warden/attest/index.js";
import { writeEvidenceFolder } from "../support/evidence-folder.js";
import { runIronclawInProcess } from "./run-cli.js";

// What `ironclaw attest export <name>` takes besides a session: a command run's order certificates, copied whole
// so the folder verifies; a name that is nothing, or several things, refused with what it could be.

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("ironclaw attest export of a run, and of names it does not know", () => {
  it("copies a run's evidence folder whole, and verify passes on the copy", async () => {
    // A run's folder as the warden keeps it, signed with the home's own host key.
    const evidence = writeEvidenceFolder(2);
    made.push(join(evidence.dir, ".."));
    const runId = "01JRUNEXPORTTEST0000000000";
    cpSync(evidence.dir, runEvidenceDirOf(evidence.home, runId), { recursive: true });
    const out = join(evidence.home, "..", "exported-run");
    const env = { env: { IRONCLAW_HOME: evidence.home } };
    const exported = await runIronclawInProcess(["attest", "export", runId, out, "--json"], env);
    expect(exported.stderr).toBe("");
    expect(JSON.parse(exported.stdout)).toEqual({ kind: "run", run_id: runId, certificates: 2 });
    expect(readdirSync(join(out, "certificates"))).toHaveLength(2);
    const verified = await runIronclawInProcess(["verify", out, "--at", "2026-11-27T12:00:01Z"], env);
    expect(verified.code).toBe(0);
  });

  it("refuses a name that is no user, run or session, saying what each would be", async () => {
    const home = mkdtempSync(join(tmpdir(), "ironclaw-export-unknown-"));
    made.push(home);
    const env = { env: { IRONCLAW_HOME: home } };
    const unknown = await runIronclawInProcess(["attest", "export", "nobody-here", join(home, "out")], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/neither a user, a run nor a session/);
    expect(unknown.stderr).toContain("attest/run-evidence/<run_id>/");

    // A user and a run of one name: --as says which.
    mkdirSync(join(home, "users", "twin"), { recursive: true });
    mkdirSync(runEvidenceDirOf(home, "twin"), { recursive: true });
    const both = await runIronclawInProcess(["attest", "export", "twin", join(home, "out")], env);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/twin is a user and a run: say which with --as user\|run/);
    const bad = await runIronclawInProcess(
      ["attest", "export", "twin", join(home, "out"), "--as", "order"],
      env,
    );
    expect(bad.stderr).toMatch(/--as.*must be one of user, run, session/);
    const asRun = await runIronclawInProcess(
      ["attest", "export", "twin", join(home, "o2"), "--as", "run", "--json"],
      env,
    );
    expect(JSON.parse(asRun.stdout)).toMatchObject({ kind: "run", run_id: "twin", certificates: 0 });
  });
});
