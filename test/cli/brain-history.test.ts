import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BrainHistory, type HistoryEntry } from "../../src/attest/index.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

const DB = "c".repeat(64);
let home: string;
let userDir: string;
let brain: string;
let nodes: HistoryEntry[];

const brainCli = (...args: string[]) =>
  runIronclawInProcess(["brain", ...args, "--user", "ada"], { env: { IRONCLAW_HOME: home } });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "brain-history-cli-"));
  userDir = join(home, "users", "ada");
  brain = join(userDir, "brain");
  mkdirSync(join(brain, "memory"), { recursive: true });
  const history = BrainHistory.open(home, "ada");
  nodes = [];
  for (const [i, text] of ["first\n", "second\n", "third\n"].entries()) {
    writeFileSync(join(brain, "memory.md"), text);
    if (i === 1) writeFileSync(join(brain, "memory", "bob.md"), "Bob likes tea\n");
    const entry = await history.record({ cause: `turn ${i + 1}`, brainDir: brain, dbSnapshotSha256: DB });
    if (entry) nodes.push(entry);
  }
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("ironclaw brain log|show|diff|restore", () => {
  it("log lists the three states newest first, chained", async () => {
    const result = await brainCli("log", "--json");
    expect(result.code).toBe(0);
    const log = JSON.parse(result.stdout) as Array<{
      node: { node_id: string; parent_node_id: string | null };
    }>;
    expect(log.map((e) => e.node.node_id)).toEqual(nodes.map((e) => e.node.node_id).reverse());
    expect(log[0]?.node.parent_node_id).toBe(nodes[1]?.node.node_id);
  });

  it("show takes a node's first characters; diff names the changed files", async () => {
    const [first, second] = nodes.map((e) => e.node.node_id);
    const shown = JSON.parse((await brainCli("show", (second as string).slice(0, 8), "--json")).stdout);
    expect(shown.files).toEqual(["memory.md", "memory/bob.md"]);
    expect(shown.cause).toBe("turn 2");
    const diff = await brainCli("diff", first as string, second as string);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("added    memory/bob.md");
    expect(diff.stdout).toContain("changed  memory.md");
    expect(diff.stdout).toContain("+second");
  });

  it("restore refuses while a running cell holds the brain, and says to stop it first", async () => {
    writeFileSync(join(userDir, "brain.lock"), String(process.pid));
    try {
      const refused = await brainCli("restore", nodes[0]?.node.node_id as string);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/in use by a running cell .*stop it first/);
      expect(readFileSync(join(brain, "memory.md"), "utf8")).toBe("third\n");
    } finally {
      rmSync(join(userDir, "brain.lock"));
    }
    // A directory brain has no lock: a running warden on this home may start the user's cell at any message.
    const address = join(home, "warden.address.json");
    writeFileSync(address, JSON.stringify({ url: "http://127.0.0.1:1", pid: process.pid, started_at: "" }));
    try {
      const refused = await brainCli("restore", nodes[0]?.node.node_id as string);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/a warden is running .*stop it first/);
    } finally {
      rmSync(address);
    }
  });

  it("restore through the real binary writes the old files back as a new node", async () => {
    const first = nodes[0]?.node as HistoryEntry["node"];
    const result = await runIronclaw(["brain", "restore", first.node_id, "--user", "ada", "--json"], {
      env: { IRONCLAW_HOME: home },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const restored = JSON.parse(result.stdout) as HistoryEntry;
    expect(restored.node.workspace.artifact_hash).toBe(first.workspace.artifact_hash);
    expect(restored.node.parent_node_id).toBe(nodes[2]?.node.node_id);
    expect(restored.cause).toBe(`restore of ${first.node_id}`);
    expect(readFileSync(join(brain, "memory.md"), "utf8")).toBe("first\n");
    const log = JSON.parse((await brainCli("log", "--json")).stdout) as unknown[];
    expect(log).toHaveLength(4);
  });
});
