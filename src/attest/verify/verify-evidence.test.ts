import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unattestedNode, writeEvidenceFolder } from "../../../test/support/evidence-folder.js";
import { canonicalBytes } from "../../core/index.js";
import { CHECK_NAMES, type CheckResult, type VerifyReport } from "./report.js";
import { verifyEvidence } from "./verify-evidence.js";

const SEED_CHECKS = ["proof", "commit_pin", "artifact_hash", "mode_fields"];

function failed(report: VerifyReport): CheckResult[] {
  return [...report.certificates.flatMap((c) => c.checks), ...report.chain].filter(
    (c) => c.status === "fail",
  );
}

/** A small seeded generator (mulberry32), so a failing flip can be replayed from its seed. */
function seeded(seed: number) {
  let a = seed;
  return (below: number) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % below) as number;
  };
}

describe("verifyEvidence on a folder", () => {
  const folder = writeEvidenceFolder(2);
  const at = { at: folder.now };

  it("passes every check of every certificate, each by name, and the chain", () => {
    const report = verifyEvidence(folder.dir, at);
    expect(report.ok).toBe(true);
    expect(report.certificates.map((c) => c.job_id).sort()).toEqual([...folder.jobIds].sort());
    for (const certificate of report.certificates) {
      expect(certificate.checks.map((c) => c.check)).toEqual([
        ...SEED_CHECKS,
        "bundle_hash",
        "bundle_hash",
        "response_hash",
      ]);
      expect(certificate.checks.every((c) => c.status === "pass")).toBe(true);
    }
    expect(report.chain).toEqual([
      { check: "chain", status: "pass", reason: expect.stringContaining("3 nodes") },
    ]);
  });

  it.each([
    ["certificate", (f: typeof folder) => `certificates/${f.jobIds[0]}.json`, ["proof", "artifact_hash"]],
    ["proof", (f: typeof folder) => `proofs/${f.jobIds[0]}.json`, ["proof"]],
    ["node", (f: typeof folder) => `nodes/${f.nodeIds[1]}.json`, []],
    ["bundle", (f: typeof folder) => `bundles/${f.stateIds[1]}/state_bundle.tar.enc`, ["bundle_hash"]],
    ["reply", (_f: typeof folder) => "responses/1.json", ["response_hash"]],
  ])("fails, naming the check, when any single byte of a %s is flipped", (_what, fileOf, mustFail) => {
    const copy = writeEvidenceFolder(1, folder.now);
    const file = join(copy.dir, fileOf(copy));
    const original = readFileSync(file);
    const next = seeded(36);
    const positions = new Set<number>();
    while (positions.size < Math.min(40, original.length)) positions.add(next(original.length));
    for (const position of positions) {
      const flipped = Buffer.from(original);
      flipped[position] = (flipped[position] as number) ^ (1 + next(255));
      writeFileSync(file, flipped);
      const report = verifyEvidence(copy.dir, { at: copy.now });
      const names = failed(report).map((c) => c.check);
      expect(report.ok, `byte ${position} of ${fileOf(copy)}`).toBe(false);
      expect(names.length, `byte ${position} of ${fileOf(copy)}`).toBeGreaterThan(0);
      for (const name of names) expect(CHECK_NAMES).toContain(name);
      for (const name of mustFail) expect(names, `byte ${position} of ${fileOf(copy)}`).toContain(name);
    }
    writeFileSync(file, original);
    expect(verifyEvidence(copy.dir, { at: copy.now }).ok).toBe(true);
  });

  it("fails the proof of every certificate when public-key.pem holds another host's key", () => {
    const copy = writeEvidenceFolder(1, folder.now);
    copyFileSync(join(folder.dir, "public-key.pem"), join(copy.dir, "public-key.pem"));
    const report = verifyEvidence(copy.dir, { at: copy.now });
    expect(failed(report)).toEqual([
      expect.objectContaining({
        check: "proof",
        field: "$.key_id",
        reason: expect.stringContaining("names another key than public-key.pem"),
      }),
    ]);
  });

  it("fails mode_fields once the replay expiry has passed, and passes as of a time before it", () => {
    const afterExpiry = new Date(folder.now.getTime() + 31 * 24 * 3600 * 1000);
    const late = verifyEvidence(folder.dir, { at: afterExpiry });
    expect(late.ok).toBe(false);
    expect(failed(late).map((c) => c.check)).toEqual(["mode_fields", "mode_fields"]);
    expect(failed(late)[0]?.reason).toMatch(/\$\.replay\.expires_at .* has passed \(verified as of /);
    expect(failed(late)[0]?.field).toBe("$.replay.expires_at");
  });
});

describe("verifyEvidence on the node chain", () => {
  it("refuses a second version of a node whose immutable linkage changed", () => {
    const f = writeEvidenceFolder(1);
    const node = JSON.parse(readFileSync(join(f.dir, "nodes", `${f.nodeIds[1]}.json`), "utf8"));
    writeFileSync(
      join(f.dir, "nodes", `${f.nodeIds[1]}.2.json`),
      canonicalBytes({ ...node, parent_node_id: null }),
    );
    const chain = verifyEvidence(f.dir, { at: f.now }).chain;
    expect(chain).toContainEqual(
      expect.objectContaining({
        check: "chain",
        status: "fail",
        field: "$.parent_node_id",
        reason: expect.stringContaining("changes immutable parent_node_id"),
      }),
    );
  });

  it("accepts a second version of a node that changed only what may change", () => {
    const f = writeEvidenceFolder(1);
    const node = JSON.parse(readFileSync(join(f.dir, "nodes", `${f.nodeIds[1]}.json`), "utf8"));
    const moved = { ...node, workspace: { ...node.workspace, artifact_ref: "s3://elsewhere/tree" } };
    writeFileSync(join(f.dir, "nodes", `${f.nodeIds[1]}.2.json`), canonicalBytes(moved));
    expect(verifyEvidence(f.dir, { at: f.now }).chain.map((c) => c.status)).toEqual(["pass"]);
  });

  it("fails when a parent is missing, and when parents form a loop", () => {
    const f = writeEvidenceFolder(1);
    rmSync(join(f.dir, "nodes", `${f.nodeIds[0]}.json`));
    expect(verifyEvidence(f.dir, { at: f.now }).chain[0]?.reason).toContain(
      `$.parent_node_id ${f.nodeIds[0]} is not in nodes/`,
    );
    const a = "0d1e2f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a";
    const b = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
    writeFileSync(join(f.dir, "nodes", `${a}.json`), canonicalBytes(unattestedNode(a, b, a, 1)));
    writeFileSync(join(f.dir, "nodes", `${b}.json`), canonicalBytes(unattestedNode(b, a, b, 2)));
    expect(verifyEvidence(f.dir, { at: f.now }).chain.map((c) => c.reason)).toContainEqual(
      expect.stringContaining("is its own ancestor"),
    );
  });

  it("fails a certificate that no node attests, and a node whose certificate is missing", () => {
    const f = writeEvidenceFolder(1);
    const nodeFile = join(f.dir, "nodes", `${f.nodeIds[1]}.json`);
    const node = readFileSync(nodeFile);
    rmSync(nodeFile);
    const report = verifyEvidence(f.dir, { at: f.now });
    expect(failed(report).map((c) => c.check)).toEqual(["commit_pin", "artifact_hash"]);
    writeFileSync(nodeFile, node);
    rmSync(join(f.dir, "certificates", `${f.jobIds[0]}.json`));
    expect(verifyEvidence(f.dir, { at: f.now }).chain).toContainEqual(
      expect.objectContaining({
        status: "fail",
        reason: expect.stringContaining("which is not in the folder"),
      }),
    );
  });
});

describe("verifyEvidence on what is not evidence", () => {
  it("does not call an empty folder verified", () => {
    const report = verifyEvidence(mkdtempSync(join(tmpdir(), "ironclaw-empty-")));
    expect(report).toMatchObject({ ok: false, certificates: [] });
  });

  it("fails the chain for a node stored under another node's name", () => {
    const f = writeEvidenceFolder(1);
    const a = "0d1e2f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a";
    writeFileSync(
      join(f.dir, "nodes", `${a}.json`),
      canonicalBytes(unattestedNode(f.nodeIds[0] as string, null, a, 0)),
    );
    expect(verifyEvidence(f.dir, { at: f.now }).chain).toContainEqual(
      expect.objectContaining({ status: "fail", field: "$.node_id", file: `nodes/${a}.json` }),
    );
  });
});

describe("verifyEvidence on one certificate", () => {
  it("checks a certificate inside an evidence folder against its proof, key and node", () => {
    const f = writeEvidenceFolder(1);
    const report = verifyEvidence(join(f.dir, "certificates", `${f.jobIds[0]}.json`), { at: f.now });
    expect(report.ok).toBe(true);
    expect(report.certificates[0]?.checks.map((c) => c.check)).toEqual([
      ...SEED_CHECKS,
      "bundle_hash",
      "bundle_hash",
      "response_hash",
    ]);
  });

  it("says which checks could not run for a certificate on its own", () => {
    const f = writeEvidenceFolder(1);
    const lone = join(mkdtempSync(join(tmpdir(), "ironclaw-lone-")), "certificate.json");
    copyFileSync(join(f.dir, "certificates", `${f.jobIds[0]}.json`), lone);
    const report = verifyEvidence(lone, { at: f.now });
    expect(report.ok).toBe(false);
    expect(report.certificates[0]?.job_id).toBe(f.jobIds[0]);
    expect(report.certificates[0]?.checks.map((c) => [c.check, c.status])).toEqual([
      ["proof", "not_run"],
      ["commit_pin", "not_run"],
      ["artifact_hash", "not_run"],
      ["mode_fields", "pass"],
    ]);
    expect(report.certificates[0]?.checks[0]?.reason).toBe(`no proof: proofs/${f.jobIds[0]}.json is missing`);
  });
});
