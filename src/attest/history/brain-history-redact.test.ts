import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BrainHistory } from "./brain-history.js";
import { treeHash } from "./brain-tree.js";

// A forget reaches the history: real git, real files. The rewrite here stands in for the warden's matcher
// (which lives above this floor): a paragraph naming the vault becomes [forgotten].

const DB = "a".repeat(64);
const SECRET = "The vault code is 4711-swordfish.";
const forgetVault = (_path: string, text: string) =>
  text
    .split("\n\n")
    .map((p) => (p.includes("4711-swordfish") ? "[forgotten]" : p))
    .join("\n\n");

let home: string;
let brain: string;
let dir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "brain-redact-"));
  brain = join(home, "users", "ada", "brain");
  dir = join(home, "attest", "history", "ada");
  mkdirSync(join(brain, "memory"), { recursive: true });
  writeFileSync(join(brain, "memory.md"), "# Memory\n\n- likes tea\n");
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** Three states: the second learns the secret, the third keeps it beside something new. */
async function threeStates(history: BrainHistory) {
  const record = async (cause: string) => {
    const entry = await history.record({ cause, brainDir: brain, dbSnapshotSha256: DB });
    if (!entry) throw new Error(`${cause} must make a node`);
    return entry;
  };
  const first = await record("turn 1");
  writeFileSync(join(brain, "memory", "2026-11-27.md"), `# Notes\n\nMet Bob.\n\n${SECRET}\n`);
  const second = await record("turn 2");
  writeFileSync(join(brain, "memory.md"), "# Memory\n\n- likes tea\n- likes rain\n");
  const third = await record("turn 3");
  return [first, second, third] as const;
}

const git = (...args: string[]) =>
  execFileSync("git", ["--git-dir", join(dir, "git"), ...args]).toString("utf8");
/** Every object the git directory holds, reachable or not, with its content. */
const allObjects = () => git("cat-file", "--batch-all-objects", "--batch");

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("BrainHistory.redact", () => {
  it("removes the words from every commit and object while every node stays listed and marked", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, second, third] = await threeStates(history);
    expect(allObjects()).toContain("4711-swordfish");
    const nodesBefore = filesUnder(join(dir, "nodes")).map((f) => readFileSync(f));

    const outcome = await history.redact(forgetVault, "memory forgotten");

    expect(outcome).toEqual({ commitsRewritten: 2, commitsRedacted: 2 });
    expect(git("log", "-p", "--all")).not.toContain("swordfish");
    expect(allObjects()).not.toContain("swordfish");
    for (const file of filesUnder(dir)) expect(readFileSync(file).includes("swordfish")).toBe(false);
    // Nodes are immutable: the same bytes as before the redaction.
    expect(filesUnder(join(dir, "nodes")).map((f) => readFileSync(f))).toEqual(nodesBefore);

    const log = await history.log();
    expect(log.map((e) => e.node.node_id)).toEqual([third, second, first].map((e) => e.node.node_id));
    expect(log.map((e) => e.redacted)).toEqual([true, true, false]);
    expect(log.map((e) => e.cause)).toEqual(["turn 3", "turn 2", "turn 1"]);
    expect(log[2]?.commit).toBe(first.commit);
    expect(log[1]?.commit).not.toBe(second.commit);
    const shown = await history.show(second.node.node_id);
    expect(shown.redacted).toBe(true);
    expect(shown.files).toEqual(["memory.md", "memory/2026-11-27.md"]);
    // Honestly redacted: the node's hash is of the tree it was made with, no longer of the one kept.
    const kept = await history.treeOf(second.node.node_id);
    expect(kept.get("memory/2026-11-27.md")?.toString()).toBe("# Notes\n\nMet Bob.\n\n[forgotten]");
    expect(treeHash(kept)).not.toBe(second.node.workspace.artifact_hash);
    const diff = await history.diff(first.node.node_id, second.node.node_id);
    expect(diff.added).toEqual(["memory/2026-11-27.md"]);
    expect(diff.patch).toContain("+[forgotten]");

    const sidecar = JSON.parse(readFileSync(join(dir, "redactions.json"), "utf8"));
    expect(sidecar.redactions).toEqual([
      expect.objectContaining({ cause: "memory forgotten", commits_rewritten: 2, commits_redacted: 2 }),
    ]);
    expect(sidecar.redacted).toEqual([second.commit, third.commit].sort());
  });

  it("restores a redacted node as its redacted text, and the history keeps growing after it", async () => {
    const history = BrainHistory.open(home, "ada");
    const [, second] = await threeStates(history);
    await history.redact(forgetVault, "memory forgotten");
    writeFileSync(join(brain, "memory", "2026-11-27.md"), "# Notes\n\nMet Bob.\n");

    const restored = await history.restore(second.node.node_id, brain, { dbSnapshotSha256: DB });

    expect(restored?.cause).toBe(`restore of ${second.node.node_id}`);
    expect(readFileSync(join(brain, "memory", "2026-11-27.md"), "utf8")).toBe(
      "# Notes\n\nMet Bob.\n\n[forgotten]",
    );
    const log = await history.log();
    expect(log.map((e) => e.cause).slice(0, 2)).toEqual([
      `restore of ${second.node.node_id}`,
      `before restore of ${second.node.node_id}`,
    ]);
    expect(log[0]?.redacted).toBe(false);
    expect(log).toHaveLength(5);
  });

  it("a second forget follows each node through both rewrites; one that matches nothing changes nothing", async () => {
    const history = BrainHistory.open(home, "ada");
    const [first, second, third] = await threeStates(history);
    expect(await history.redact((_p, text) => text, "memory forgotten")).toEqual({
      commitsRewritten: 0,
      commitsRedacted: 0,
    });
    expect(() => statSync(join(dir, "redactions.json"))).toThrow();

    await history.redact(forgetVault, "memory forgotten");
    await history.redact((_p, text) => text.replace("likes tea", "[forgotten]"), "memory forgotten");

    expect(allObjects()).not.toContain("likes tea");
    const log = await history.log();
    expect(log.map((e) => e.node.node_id)).toEqual([third, second, first].map((e) => e.node.node_id));
    expect(log.map((e) => e.redacted)).toEqual([true, true, true]);
    expect((await history.treeOf(first.node.node_id)).get("memory.md")?.toString()).toBe(
      "# Memory\n\n- [forgotten]\n",
    );
    const sidecar = JSON.parse(readFileSync(join(dir, "redactions.json"), "utf8"));
    expect(Object.keys(sidecar.commits).sort()).toEqual([first.commit, second.commit, third.commit].sort());
    expect(sidecar.redactions).toHaveLength(2);
  });
});
