import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VerifyReport } from "../../src/attest/index.js";
import { writeEvidenceFolder } from "../support/evidence-folder.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

describe("ironclaw verify", () => {
  const folder = writeEvidenceFolder(2);
  const at = folder.now.toISOString();

  it("prints one line per check per certificate and exits 0 when all pass", async () => {
    // The binary itself: argv, stdout and the exit code of a real process.
    const { code, stdout, stderr } = await runIronclaw(["verify", folder.dir, "--at", at]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    for (const jobId of folder.jobIds)
      for (const check of [
        "proof",
        "commit_pin",
        "artifact_hash",
        "mode_fields",
        "bundle_hash",
        "response_hash",
      ])
        expect(stdout).toMatch(new RegExp(`^${jobId}  ${check} +pass `, "m"));
    expect(stdout).toMatch(/^nodes {2}chain +pass +3 nodes/m);
    expect(stdout.trim().split("\n").at(-1)).toBe(
      `verified: 2 certificates, 15 checks as of ${at}, all pass`,
    );
  });

  it("exits 1 with a machine report naming the failed check, file and field", async () => {
    const copy = writeEvidenceFolder(1, folder.now);
    const bundle = join(copy.dir, "bundles", copy.stateIds[1] as string, "state_bundle.tar.enc");
    const bytes = readFileSync(bundle);
    bytes[7] = (bytes[7] as number) ^ 0x01;
    writeFileSync(bundle, bytes);
    const { code, stdout } = await runIronclawInProcess(["verify", "--json", copy.dir, "--at", at]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as VerifyReport;
    expect(report.ok).toBe(false);
    expect(report.certificates[0]?.checks.filter((c) => c.status === "fail")).toEqual([
      {
        check: "bundle_hash",
        status: "fail",
        file: `bundles/${copy.stateIds[1]}/state_bundle.tar.enc`,
        reason: expect.stringContaining("$.result.new_state.bundle_sha256"),
      },
    ]);
  });

  it("fails mode_fields for a certificate whose replay expiry has passed", async () => {
    const { code, stdout } = await runIronclawInProcess([
      "verify",
      folder.dir,
      "--at",
      "2027-06-01T00:00:00Z",
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/ mode_fields +FAIL .*\$\.replay\.expires_at .* has passed/);
    expect(stdout).toContain(
      "NOT verified: 2 certificates, 15 checks as of 2027-06-01T00:00:00.000Z: 2 failed, 0 not run",
    );
  });

  it("exits 2 for a time that is not RFC 3339 and for a path that is not there", async () => {
    const badTime = await runIronclawInProcess(["verify", folder.dir, "--at", "yesterday"]);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain("--at: must be an RFC 3339 time");
    const missing = await runIronclawInProcess(["verify", join(folder.dir, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope: no such file or folder");
    expect((await runIronclawInProcess(["verify"])).code).toBe(2);
  });
});

describe("ironclaw validate reads what verify checks", () => {
  it("accepts the nodes and certificates an evidence folder holds, artifact:// proof refs included", async () => {
    const f = writeEvidenceFolder(1);
    const node = join(f.dir, "nodes", `${f.nodeIds[1]}.json`);
    const certificate = join(f.dir, "certificates", `${f.jobIds[0]}.json`);
    expect(JSON.parse(readFileSync(node, "utf8")).attestation.proof_ref).toMatch(/^artifact:\/\/proofs\//);
    expect(await runIronclawInProcess(["validate", "branch-node", node])).toMatchObject({
      code: 0,
      stdout: "valid\n",
    });
    expect(await runIronclawInProcess(["validate", "certificate", certificate])).toMatchObject({
      code: 0,
      stdout: "valid\n",
    });
  });

  it("accepts a producer's local:// locators and string run ids in result.json", async () => {
    const text = JSON.stringify({
      run_id: "run-1",
      bundle_ref: "local://bundles/node-abc.tar",
      certificate_ref: "local://runs/run-1/certificate.json",
    });
    expect(await runIronclawInProcess(["validate", "result-json", "-"], text)).toMatchObject({
      code: 0,
      stdout: "valid\n",
    });
    const bare = JSON.stringify({ bundle_ref: "/tmp/bundle.tar.enc" });
    const refused = await runIronclawInProcess(["validate", "result-json", "-"], bare);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("$.bundle_ref: must be a scheme://… locator");
  });
});
