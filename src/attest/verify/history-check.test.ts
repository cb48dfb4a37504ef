import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrainHistory, exportHistory } from "../history/index.js";
import { verifyEvidence } from "./verify-evidence.js";

// The brain history an export carries is checked by verify like a state bundle: its bytes against the digests
// history.json restates, its nodes against nodes/. A folder without one is not asked for one.

let base: string;
let folder: string;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "history-check-"));
  const brain = join(base, "brain");
  mkdirSync(brain);
  const history = BrainHistory.open(join(base, "home"), "ada");
  for (const text of ["one", "two"]) {
    writeFileSync(join(brain, "memory.md"), text);
    await history.record({ cause: text, brainDir: brain, dbSnapshotSha256: "c".repeat(64) });
  }
  folder = join(base, "evidence");
  await exportHistory(join(base, "home"), "ada", folder);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const chainChecks = () => verifyEvidence(folder).chain.map((c) => `${c.check} ${c.status} ${c.file ?? ""}`);

/** Runs `spoil` on a file, reads the chain checks, and puts the file back. */
function spoiled(file: string, spoil: (bytes: Buffer) => Buffer | undefined): string[] {
  const path = join(folder, file);
  const original = readFileSync(path);
  const bytes = spoil(Buffer.from(original));
  if (bytes === undefined) rmSync(path);
  else writeFileSync(path, bytes);
  try {
    return chainChecks();
  } finally {
    writeFileSync(path, original);
  }
}

describe("verify on a folder with a brain history", () => {
  it("passes the bundle, its digest and every node it names", () => {
    expect(chainChecks()).toEqual(["chain pass ", "bundle_hash pass ", "chain pass "]);
  });

  it("fails bundle_hash when a byte of history.bundle is flipped or the bundle is gone", () => {
    const flip = (b: Buffer) => {
      b[40] = (b[40] as number) ^ 0x08;
      return b;
    };
    expect(spoiled("history/history.bundle", flip)).toContain("bundle_hash fail history/history.bundle");
    expect(spoiled("history/history.bundle", () => undefined)).toContain(
      "bundle_hash fail history/history.bundle",
    );
  });

  it("fails when history.json is gone, or names a node nodes/ lacks", () => {
    expect(spoiled("history/history.json", () => undefined)).toContain(
      "bundle_hash fail history/history.json",
    );
    const renamed = (b: Buffer) => {
      const json = JSON.parse(b.toString("utf8"));
      json.node_ids = [...json.node_ids, "00000000-0000-4000-8000-000000000000"];
      return Buffer.from(JSON.stringify(json));
    };
    expect(spoiled("history/history.json", renamed)).toContain("chain fail history/history.json");
  });
});
