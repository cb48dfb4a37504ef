import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatRequest, unattestedNode, WORKFLOW_REF } from "../../../test/support/evidence-folder.js";
import { exportBrainState } from "../bundle/index.js";
import { loadOrCreateHostKey } from "../sign/host-key.js";
import { issueCertificate } from "../sign/issue.js";
import { verifyEvidence } from "./verify-evidence.js";

describe("verify on a bundle export really sealed", () => {
  it("passes bundle_hash for the encrypted bundle and its result.json, and fails it when result.json lies", async () => {
    const base = mkdtempSync(join(tmpdir(), "ironclaw-sealed-"));
    const home = join(base, "home");
    const brainDir = join(base, "brain");
    const dir = join(base, "evidence");
    mkdirSync(brainDir, { recursive: true });
    writeFileSync(join(brainDir, "memory.md"), "# Memory\n- milk\n");
    const exported = await exportBrainState({ home, user: "ada", brainDir, evidenceDir: dir });
    const key = loadOrCreateHostKey(home);
    const now = new Date("2026-11-27T12:00:00Z");
    const root = unattestedNode("3f0c6f7e-2b4d-4c1a-9a7e-5d2f8b6c1e90", null, exported.packed.stateId, 0);
    const issued = issueCertificate(
      {
        request: chatRequest("remember milk"),
        mode: "prompt-run",
        newState: {
          state_id: exported.packed.stateId,
          bundle_sha256: exported.packed.bundleSha256,
          bundle_manifest_sha256: exported.packed.manifestSha256,
        },
        response: {
          sha256: `sha256:${createHash("sha256").update("milk noted").digest("hex")}`,
          locator: "artifact://responses/1.json",
        },
        runtime: { workflowRef: WORKFLOW_REF, startedAt: now.toISOString(), finishedAt: now.toISOString() },
        node: root,
        now,
      },
      key,
    );
    const jobId = issued.certificate.job_id;
    for (const sub of ["certificates", "proofs", "responses", "nodes"])
      mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, "public-key.pem"), key.publicKeyPem);
    writeFileSync(join(dir, "certificates", `${jobId}.json`), issued.bytes);
    writeFileSync(join(dir, "proofs", `${jobId}.json`), issued.proofBytes);
    writeFileSync(join(dir, "responses", "1.json"), "milk noted");
    writeFileSync(join(dir, "nodes", `${root.node_id}.json`), issued.nodeBytes as Buffer);

    const report = verifyEvidence(dir, { at: now });
    expect(report.certificates[0]?.checks.map((c) => `${c.check} ${c.status}`)).toEqual([
      "proof pass",
      "commit_pin pass",
      "artifact_hash pass",
      "mode_fields pass",
      "bundle_hash pass",
      "response_hash pass",
    ]);
    expect(report.ok).toBe(true);

    const resultFile = join(exported.bundleDir, "result.json");
    const result = JSON.parse(readFileSync(resultFile, "utf8"));
    writeFileSync(resultFile, JSON.stringify({ ...result, bundle_sha256: `sha256:${"0".repeat(64)}` }));
    const lied = verifyEvidence(dir, { at: now }).certificates[0]?.checks.find(
      (c) => c.check === "bundle_hash",
    );
    expect(lied).toMatchObject({
      status: "fail",
      field: "$.bundle_sha256",
      file: `bundles/${exported.packed.stateId}/result.json`,
    });
  });
});
