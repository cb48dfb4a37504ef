import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/index.js";
import { createBrainHistorySink } from "./brain-change-sink.js";
import { BrainHistory } from "./brain-history.js";
import { readBrainTree, treeHash } from "./brain-tree.js";

let home: string;
const brainOf = (user: string) => join(home, "users", user, "brain");

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "brain-sink-"));
  mkdirSync(join(brainOf("ada"), "db"), { recursive: true });
  writeFileSync(join(brainOf("ada"), "memory.md"), "one\n");
  writeFileSync(join(brainOf("ada"), "db", "ironclaw.db"), "db bytes");
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const sinkFor = () =>
  createBrainHistorySink({ home, brainDirOf: (u) => (u === "ada" ? brainOf(u) : undefined) });

describe("the brain history sink", () => {
  it("records a directory brain as it is on the host, with the database file's hash", async () => {
    const outcome = await sinkFor().brainChanged({ userId: "ada", cause: "turn 1" });
    if (!outcome.ok || !outcome.entry) throw new Error(`expected a node: ${JSON.stringify(outcome)}`);
    expect(outcome.entry.node.state_db.snapshot_hash).toBe(`sha256:${sha256Hex("db bytes")}`);
    expect(outcome.entry.node.workspace.artifact_hash).toBe(treeHash(readBrainTree(brainOf("ada"))));
    expect(outcome.entry.cause).toBe("turn 1");
  });

  it("changes arriving close together are recorded once, and the node is the brain as it ends", async () => {
    const sink = sinkFor();
    const outcomes = [];
    for (let i = 2; i <= 6; i++) {
      writeFileSync(join(brainOf("ada"), "memory.md"), `turn ${i}\n`);
      outcomes.push(sink.brainChanged({ userId: "ada", cause: `turn ${i}` }));
    }
    const settled = await Promise.all(outcomes);
    expect(settled.every((o) => o.ok)).toBe(true);
    expect(settled.every((o) => o === settled[0])).toBe(true);
    const log = await BrainHistory.open(home, "ada").log();
    expect(log).toHaveLength(1);
    expect(log[0]?.cause).toBe("turn 2; turn 3; turn 4; turn 5; turn 6");
    expect(log[0]?.node.workspace.artifact_hash).toBe(treeHash(readBrainTree(brainOf("ada"))));
  });

  it("settle waits for every change handed in, the ones waiting behind a running record too", async () => {
    const sink = sinkFor();
    void sink.brainChanged({ userId: "ada", cause: "turn 1" });
    writeFileSync(join(brainOf("ada"), "memory.md"), "two\n");
    void sink.brainChanged({ userId: "ada", cause: "turn 2" });
    await sink.settle();
    const history = BrainHistory.open(home, "ada");
    const head = history.nodes.get(history.head() as string);
    expect(head.workspace.artifact_hash).toBe(treeHash(readBrainTree(brainOf("ada"))));
    expect(existsSync(join(history.dir, "lock"))).toBe(false);
  });

  it("a brain that is not a directory here is recorded from the reported changes, or skipped without them", async () => {
    const sink = sinkFor();
    const skipped = await sink.brainChanged({ userId: "bob", cause: "turn 1" });
    expect(skipped).toMatchObject({ ok: true, entry: undefined });
    const recorded = await sink.brainChanged({
      userId: "bob",
      cause: "memory edit in the UI",
      changes: [{ path: "memory.md", content: "from the UI\n" }],
      dbSnapshotSha256: "d".repeat(64),
    });
    expect(recorded.ok && recorded.entry?.node.state_db.snapshot_hash).toBe(`sha256:${"d".repeat(64)}`);
  });

  it("reports a failure as data instead of throwing", async () => {
    const outcome = await sinkFor().brainChanged({ userId: "ada", cause: "turn", dbSnapshotSha256: "nope" });
    expect(outcome).toMatchObject({ ok: false });
    expect(!outcome.ok && outcome.error).toMatch(/dbSnapshotSha256/);
  });
});
