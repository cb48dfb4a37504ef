import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, canonicalBytes, InvalidInputError, isWithin, sha256Hex } from "../../core/index.js";
import { BrainHistory } from "./brain-history.js";
import { readBrainTree, treeHash } from "./brain-tree.js";

const DB_A = "a".repeat(64);
const DB_B = `sha256:${"b".repeat(64)}`;

let home: string;
let brain: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "brain-history-"));
  brain = join(home, "users", "ada", "brain");
  mkdirSync(join(brain, "memory"), { recursive: true });
  mkdirSync(join(brain, "db"));
  writeFileSync(join(brain, "memory.md"), "# Memory\n");
  writeFileSync(join(brain, "soul.md"), "be kind\n");
  writeFileSync(join(brain, "db", "ironclaw.db"), "not markdown");
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

async function threeChanges(history: BrainHistory) {
  const first = await history.record({ cause: "turn 1", brainDir: brain, dbSnapshotSha256: DB_A });
  writeFileSync(join(brain, "memory.md"), "# Memory\n- likes tea\n");
  writeFileSync(join(brain, "memory", "2026-11-27.md"), "met Bob\n");
  const second = await history.record({ cause: "turn 2", brainDir: brain, dbSnapshotSha256: DB_A });
  rmSync(join(brain, "soul.md"));
  const third = await history.record({ cause: "turn 3", brainDir: brain, dbSnapshotSha256: DB_B });
  if (!first || !second || !third) throw new Error("each change must make a node");
  return [first, second, third] as const;
}

describe("BrainHistory", () => {
  it("three changes make three nodes chained by parent, ratchet step and a real commit each", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, second, third] = await threeChanges(history);
    expect(first.node.parent_node_id).toBeNull();
    expect(second.node.parent_node_id).toBe(first.node.node_id);
    expect(third.node.parent_node_id).toBe(second.node.node_id);
    expect([first, second, third].map((e) => e.node.state_db.ratchet_step)).toEqual([0, 1, 2]);
    expect(third.node.state_db.snapshot_hash).toBe(DB_B);
    expect(third.node.state_db.engine).toEqual({
      kind: "sqlite-serialized",
      schema_version: "loom-state-v1",
    });
    const gitDir = join(history.dir, "git");
    for (const entry of [first, second, third]) {
      expect(entry.node.attestation.commit_sha_required).toBe(entry.commit);
      expect(
        execFileSync("git", ["--git-dir", gitDir, "cat-file", "-t", entry.commit], { encoding: "utf8" }),
      ).toBe("commit\n");
      // Stored as canonical JSON bytes.
      const stored = readFileSync(join(history.dir, "nodes", `${entry.node.node_id}.json`));
      expect(stored.equals(canonicalBytes(entry.node))).toBe(true);
    }
    const log = await history.log();
    expect(log.map((e) => e.node.node_id)).toEqual([third, second, first].map((e) => e.node.node_id));
    expect(log.map((e) => e.cause)).toEqual(["turn 3", "turn 2", "turn 1"]);
    expect((await history.show(second.node.node_id)).files).toEqual([
      "memory.md",
      "memory/2026-11-27.md",
      "soul.md",
    ]);
  });

  it("a change that leaves the tree and the database hash as they were makes no node", async () => {
    const history = BrainHistory.open(home, "ada");
    const first = await history.record({ cause: "turn 1", brainDir: brain, dbSnapshotSha256: DB_A });
    writeFileSync(join(brain, "notes.txt"), "not markdown, not in the tree");
    expect(
      await history.record({ cause: "turn 2", brainDir: brain, dbSnapshotSha256: DB_A }),
    ).toBeUndefined();
    const dbOnly = await history.record({ cause: "turn 3", brainDir: brain, dbSnapshotSha256: DB_B });
    expect(dbOnly?.node.workspace.artifact_hash).toBe(first?.node.workspace.artifact_hash);
    expect(dbOnly?.node.parent_node_id).toBe(first?.node.node_id);
  });

  it("the tree's hash is sha256 of the canonical JSON of its sorted [path, sha256] pairs", () => {
    const tree = readBrainTree(brain);
    expect([...tree.keys()]).toEqual(["memory.md", "soul.md"]);
    const pairs = [
      ["memory.md", sha256Hex("# Memory\n")],
      ["soul.md", sha256Hex("be kind\n")],
    ];
    expect(treeHash(tree)).toBe(`sha256:${sha256Hex(JSON.stringify(pairs))}`);
  });

  it("diff names exactly the files added, changed and removed, with git's unified diff", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, , third] = await threeChanges(history);
    const diff = await history.diff(first.node.node_id, third.node.node_id);
    expect(diff).toMatchObject({
      added: ["memory/2026-11-27.md"],
      changed: ["memory.md"],
      removed: ["soul.md"],
    });
    expect(diff.patch).toContain("+- likes tea");
    expect(diff.patch).toContain("-be kind");
    expect(diff.patch).not.toContain("ironclaw.db");
  });

  it("restore writes an old tree back as a new node equal in content, leaving the old nodes as they were", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, , third] = await threeChanges(history);
    const before = readFileSync(join(history.dir, "nodes", `${first.node.node_id}.json`));
    const restored = await history.restore(first.node.node_id, brain, { dbSnapshotSha256: DB_A });
    expect(restored?.node.workspace.artifact_hash).toBe(first.node.workspace.artifact_hash);
    expect(restored?.node.node_id).not.toBe(first.node.node_id);
    expect(restored?.node.parent_node_id).toBe(third.node.node_id);
    expect(restored?.node.state_db.ratchet_step).toBe(3);
    expect(restored?.cause).toBe(`restore of ${first.node.node_id}`);
    expect(readFileSync(join(brain, "memory.md"), "utf8")).toBe("# Memory\n");
    expect(readFileSync(join(brain, "soul.md"), "utf8")).toBe("be kind\n");
    expect([...readBrainTree(brain).keys()]).toEqual(["memory.md", "soul.md"]);
    expect(readFileSync(join(brain, "db", "ironclaw.db"), "utf8")).toBe("not markdown");
    expect(readFileSync(join(history.dir, "nodes", `${first.node.node_id}.json`)).equals(before)).toBe(true);
    expect((await history.log()).length).toBe(4);
  });

  it("restore first keeps files changed since the last node as a node of their own", async () => {
    const history = BrainHistory.open(home, "ada");
    const first = await history.record({ cause: "turn 1", brainDir: brain, dbSnapshotSha256: DB_A });
    writeFileSync(join(brain, "memory.md"), "# Memory\n- written while no one recorded\n");
    const restored = await history.restore(first?.node.node_id as string, brain, { dbSnapshotSha256: DB_A });
    const log = await history.log();
    expect(log.map((e) => e.cause)).toEqual([
      `restore of ${first?.node.node_id}`,
      `before restore of ${first?.node.node_id}`,
      "turn 1",
    ]);
    const kept = await history.treeOf(log[1]?.node.node_id as string);
    expect(kept.get("memory.md")?.toString("utf8")).toContain("written while no one recorded");
    expect(restored?.node.workspace.artifact_hash).toBe(first?.node.workspace.artifact_hash);
  });

  it("restore replaces a link the brain planted instead of writing through it", async () => {
    const history = BrainHistory.open(home, "ada");
    const first = await history.record({ cause: "turn 1", brainDir: brain, dbSnapshotSha256: DB_A });
    const outside = join(home, "host-secret.md");
    writeFileSync(outside, "host file\n");
    rmSync(join(brain, "soul.md"));
    symlinkSync(outside, join(brain, "soul.md"));
    // The link is not part of the tree: it is never read.
    expect([...readBrainTree(brain).keys()]).toEqual(["memory.md"]);
    await history.restore(first?.node.node_id as string, brain, { dbSnapshotSha256: DB_A });
    expect(readFileSync(outside, "utf8")).toBe("host file\n");
    expect(readFileSync(join(brain, "soul.md"), "utf8")).toBe("be kind\n");
  });

  it("a node id written again with different immutable linkage is refused, naming the fields", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, second] = await threeChanges(history);
    const moved = {
      ...second.node,
      parent_node_id: null,
      state_db: { ...second.node.state_db, ratchet_step: 9 },
    };
    expect(() => history.nodes.put(moved)).toThrow(ConflictError);
    expect(() => history.nodes.put(moved)).toThrow(/parent_node_id, state_db\.ratchet_step/);
    expect(history.nodes.get(second.node.node_id).parent_node_id).toBe(first.node.node_id);
    // The same node again is no change; an attestation filled in later is not linkage.
    expect(history.nodes.put(second.node)).toEqual(second.node);
    const attested = { ...second.node, attestation: { ...second.node.attestation, artifact_hash: DB_B } };
    expect(history.nodes.put(attested).attestation.artifact_hash).toBe(DB_B);
  });

  it("lives outside the brain it records, and refuses a brain that contains it", async () => {
    const history = BrainHistory.open(home, "ada");
    expect(isWithin(brain, history.dir)).toBe(false);
    expect(isWithin(history.dir, brain)).toBe(false);
    const record = history.record({ cause: "turn", brainDir: home, dbSnapshotSha256: DB_A });
    await expect(record).rejects.toThrow(InvalidInputError);
    await expect(record).rejects.toThrow(/brainDir/);
  });

  it("records the changes the warden reports on top of the last node's tree", async () => {
    const history = BrainHistory.open(home, "ada");
    await history.record({ cause: "turn 1", brainDir: brain, dbSnapshotSha256: DB_A });
    const next = await history.record({
      cause: "memory edit in the UI",
      changes: [
        { path: "memory.md", content: "# Memory\n- edited\n" },
        { path: "soul.md", content: null },
        { path: "config/irowclaw.toml", content: "ignored = true" },
      ],
      dbSnapshotSha256: DB_A,
    });
    const tree = await history.treeOf(next?.node.node_id as string);
    expect([...tree.entries()].map(([p, c]) => [p, c.toString("utf8")])).toEqual([
      ["memory.md", "# Memory\n- edited\n"],
    ]);
  });

  it("refuses bad input naming the field", async () => {
    const history = BrainHistory.open(home, "ada");
    await expect(history.record({ cause: "x", brainDir: brain, dbSnapshotSha256: "abc" })).rejects.toThrow(
      /dbSnapshotSha256: must be a sha256 digest/,
    );
    await expect(
      history.record({
        cause: "x",
        changes: [{ path: "../escape.md", content: "x" }],
        dbSnapshotSha256: DB_A,
      }),
    ).rejects.toThrow(/changes\[0\]\.path/);
    expect(() => BrainHistory.open(home, "../bob")).toThrow(/user: must start/);
    expect(() => history.nodes.get("not-a-uuid")).toThrow(/node_id: must be a lowercase UUID/);
  });
});
