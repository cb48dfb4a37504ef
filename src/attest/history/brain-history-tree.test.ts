import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BrainHistory } from "./brain-history.js";

// A brain the host cannot read is recorded as a whole tree its cell reported: exactly those files, and nothing
// the history does not keep.

const DB = `sha256:${"e".repeat(64)}`;
let home = "";
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("recording a reported tree", () => {
  it("makes the node's tree exactly the reported files, removed ones gone", async () => {
    home = mkdtempSync(join(tmpdir(), "ironclaw-history-tree-"));
    const history = BrainHistory.open(home, "ada");
    const files = (entries: Record<string, string>) =>
      new Map(Object.entries(entries).map(([p, t]) => [p, Buffer.from(t)]));
    await history.record({
      cause: "turn 1",
      tree: files({ "a.md": "a", "n/b.md": "b" }),
      dbSnapshotSha256: DB,
    });
    const second = await history.record({
      cause: "turn 2",
      tree: files({ "n/b.md": "b2" }),
      dbSnapshotSha256: DB,
    });
    const tree = await history.treeOf(second?.node.node_id as string);
    expect([...tree].map(([p, b]) => [p, b.toString()])).toEqual([["n/b.md", "b2"]]);
  });

  it("refuses a tree naming a path the history does not keep, recording nothing", async () => {
    home = mkdtempSync(join(tmpdir(), "ironclaw-history-tree-"));
    const history = BrainHistory.open(home, "ada");
    for (const path of ["db/x.md", "notes/x.txt", ".git/x.md", "a//b.md"])
      await expect(
        history.record({ cause: "turn", tree: new Map([[path, Buffer.from("x")]]), dbSnapshotSha256: DB }),
      ).rejects.toThrow(/tree|not a markdown path/);
    expect(history.head()).toBeUndefined();
  });
});
