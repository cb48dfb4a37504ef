import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalBytes, sha256Hex } from "../../core/index.js";
import { BrainHistory } from "./brain-history.js";
import { exportHistory } from "./history-export.js";
import { historyExists, importHistory } from "./history-import.js";
import type { HistoryManifest } from "./history-manifest.js";

// A brain's history leaves one IRONCLAW_HOME in an evidence folder and comes back under another: real git, real
// files. What the folder holds is handed over, so each way of spoiling it must be refused, naming what.

const DB = "b".repeat(64);
let base: string;
let brain: string;
let folder: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "history-transfer-"));
  brain = join(base, "home", "users", "ada", "brain");
  folder = join(base, "evidence");
  mkdirSync(brain, { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function threeStates(history: BrainHistory) {
  const ids: string[] = [];
  for (const line of ["- tea", "- rain", "- vault 4711"]) {
    const before = existsSync(join(brain, "memory.md")) ? readFileSync(join(brain, "memory.md"), "utf8") : "";
    writeFileSync(join(brain, "memory.md"), `${before}${line}\n`);
    const entry = await history.record({ cause: `remember ${line}`, brainDir: brain, dbSnapshotSha256: DB });
    ids.push(entry?.node.node_id as string);
  }
  return ids as [string, string, string];
}

const manifestFile = () => join(folder, "history", "history.json");
const readManifest = () => JSON.parse(readFileSync(manifestFile(), "utf8")) as HistoryManifest;

describe("a brain history exported and imported", () => {
  it("logs, diffs and restores under a fresh home as it did at home, after a forget rewrote it", async () => {
    const home = join(base, "home");
    const history = BrainHistory.open(home, "ada");
    const [first, , third] = await threeStates(history);
    await history.redact((_p, text) => text.replace("4711", "[forgotten]"), "forget the vault");
    const exported = await exportHistory(home, "ada", folder);
    expect(exported?.manifest.node_ids).toHaveLength(3);
    expect(exported?.manifest.redactions_sha256).toMatch(/^sha256:/);
    expect(exported?.nodesWritten).toBe(3);
    expect(readFileSync(join(folder, "history", "history.bundle")).includes("4711")).toBe(false);

    const fresh = join(base, "fresh");
    const imported = await importHistory({ home: fresh, userId: "bea", evidenceDir: folder });
    expect(imported).toMatchObject({ headNodeId: third, nodes: 3 });
    const moved = BrainHistory.open(fresh, "bea");
    expect((await moved.log()).map((e) => [e.node.node_id, e.cause, e.redacted])).toEqual(
      (await history.log()).map((e) => [e.node.node_id, e.cause, e.redacted]),
    );
    expect(await moved.diff(first, third)).toEqual(await history.diff(first, third));

    const freshBrain = join(fresh, "users", "bea", "brain");
    mkdirSync(freshBrain, { recursive: true });
    const restored = await moved.restore(first, freshBrain, { dbSnapshotSha256: DB });
    expect(restored?.node.parent_node_id).not.toBe(third); // the brain held nothing: kept as a node first
    expect(readFileSync(join(freshBrain, "memory.md"), "utf8")).toBe("- tea\n");
    // A state recorded from changes alone starts from the mirror the import wrote.
    const next = await moved.record({
      cause: "edit",
      changes: [{ path: "notes.md", content: "x" }],
      dbSnapshotSha256: DB,
    });
    expect([...(await moved.treeOf(next?.node.node_id as string)).keys()]).toEqual(["memory.md", "notes.md"]);
  });

  it("is refused over a history the user already has, and leaves that one alone", async () => {
    await threeStates(BrainHistory.open(join(base, "home"), "ada"));
    await exportHistory(join(base, "home"), "ada", folder);
    expect(historyExists(join(base, "home"), "ada")).toBe(true);
    await expect(
      importHistory({ home: join(base, "home"), userId: "ada", evidenceDir: folder }),
    ).rejects.toThrow(/already has a brain history/);
    expect(await BrainHistory.open(join(base, "home"), "ada").log()).toHaveLength(3);
  });

  it("refuses a spoiled folder before anything lands, naming the file and field", async () => {
    const home = join(base, "home");
    const [first] = await threeStates(BrainHistory.open(home, "ada"));
    await exportHistory(home, "ada", folder);
    const fresh = join(base, "fresh");
    const attempt = () => importHistory({ home: fresh, userId: "ada", evidenceDir: folder });
    const bundle = join(folder, "history", "history.bundle");
    const original = readFileSync(bundle);
    const manifest = readManifest();

    const flipped = Buffer.from(original);
    flipped[original.length - 5] = (flipped[original.length - 5] as number) ^ 1;
    writeFileSync(bundle, flipped);
    await expect(attempt()).rejects.toThrow(/\$\.bundle_sha256/);

    // The digest made to match: git itself refuses a bundle that is not one.
    writeFileSync(bundle, Buffer.from("not a bundle"));
    const lie = { ...manifest, bundle_sha256: `sha256:${sha256Hex(Buffer.from("not a bundle"))}` };
    writeFileSync(manifestFile(), canonicalBytes(lie));
    await expect(attempt()).rejects.toThrow(/bundle verify|git/);

    // A node pinning a commit the bundle does not hold.
    writeFileSync(bundle, original);
    writeFileSync(manifestFile(), canonicalBytes(manifest));
    const nodeFile = join(folder, "nodes", `${first}.json`);
    const node = JSON.parse(readFileSync(nodeFile, "utf8"));
    node.attestation.commit_sha_required = "c".repeat(40);
    writeFileSync(nodeFile, canonicalBytes(node));
    await expect(attempt()).rejects.toThrow(/commit_sha_required/);

    // A node the manifest names missing from nodes/.
    rmSync(nodeFile);
    await expect(attempt()).rejects.toThrow(/\$\.node_ids: names node/);

    writeFileSync(manifestFile(), canonicalBytes({ ...manifest, extra: 1 }));
    await expect(attempt()).rejects.toThrow(/history\.json/);
    expect(historyExists(fresh, "ada")).toBe(false);
    expect(existsSync(join(fresh, "attest", "history", "ada"))).toBe(false);
  });

  it("takes only the history's branch from a bundle that holds more", async () => {
    const home = join(base, "home");
    await threeStates(BrainHistory.open(home, "ada"));
    const gitDir = join(home, "attest", "history", "ada", "git");
    execFileSync("git", ["--git-dir", gitDir, "branch", "other", "main"]);
    execFileSync("git", ["--git-dir", gitDir, "tag", "v1", "main"]);
    await exportHistory(home, "ada", folder);
    const fresh = join(base, "fresh");
    await importHistory({ home: fresh, userId: "ada", evidenceDir: folder });
    const refs = execFileSync("git", [
      "--git-dir",
      join(fresh, "attest", "history", "ada", "git"),
      "for-each-ref",
    ]);
    expect(
      refs
        .toString("utf8")
        .trim()
        .split("\n")
        .map((l) => l.split("\t")[1]),
    ).toEqual(["refs/heads/main"]);
  });
});
