import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CellHandle, createBwrapBackend, defaultRuntime } from "../../cells/index.js";
import { copyTreeIn } from "./tree-transfer.js";

// Several writes are on their way to the cell at once: what arrives, what the report says and what the caps let
// through must be exactly what a one-file-at-a-time copy gives.
let home = "";
let cell: CellHandle;
let tree = "";
const brainOf = () => join(home, "user", "brain");
/** The tree's files in the order of the walk (names sorted, folder by folder). */
const walkOrder: string[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-tree-window-"));
  tree = join(home, "worktree");
  for (const folder of ["a", "b/deep", "c"]) await mkdir(join(tree, folder), { recursive: true });
  const files = [
    ...Array.from({ length: 20 }, (_, i) => `a/f${String(i).padStart(2, "0")}.txt`),
    ...Array.from({ length: 20 }, (_, i) => `b/deep/g${String(i).padStart(2, "0")}.txt`),
    ...Array.from({ length: 20 }, (_, i) => `c/h${String(i).padStart(2, "0")}.txt`),
  ];
  for (const file of files) await writeFile(join(tree, file), `${file}\n`.padEnd(100, "."));
  walkOrder.push(...files);
  cell = await createBwrapBackend({ runtime: defaultRuntime(), brainImages: false }).start({
    userId: "tree-window-user",
    userDir: join(home, "user"),
    handler: "echo",
    startTimeoutMs: 60_000,
  });
}, 90_000);
afterAll(async () => {
  await cell?.stop();
  await rm(home, { recursive: true, force: true });
});

async function filesIn(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await filesIn(dir, path)));
    else found.push(path);
  }
  return found.sort();
}

describe("a tree copied into a cell with writes in flight together", () => {
  it("lands every file byte for byte and reports them in the order of the walk", async () => {
    const sent = await copyTreeIn(cell, tree, "work/all");
    expect(sent.files).toEqual(walkOrder);
    expect(sent.bytes).toBe(60 * 100);
    expect(sent.skipped).toEqual([]);
    expect(await filesIn(join(brainOf(), "work", "all"))).toEqual([...walkOrder].sort());
    for (const file of walkOrder)
      expect(await readFile(join(brainOf(), "work", "all", file), "utf8")).toBe(
        await readFile(join(tree, file), "utf8"),
      );
  }, 60_000);

  it("sends no file past the file cap, counting the writes the cell has not answered yet", async () => {
    const limits = { maxFiles: 25, maxBytes: 1_000_000, maxFileBytes: 1_000 };
    const sent = await copyTreeIn(cell, tree, "work/files-capped", limits);
    expect(sent.files).toEqual(walkOrder.slice(0, 25));
    expect(sent.skipped).toEqual(
      walkOrder.slice(25).map((path) => ({ path, reason: "over the cap of 25 files" })),
    );
    expect(await filesIn(join(brainOf(), "work", "files-capped"))).toEqual(walkOrder.slice(0, 25).sort());
  }, 60_000);

  it("sends no byte past the byte cap, counting the writes the cell has not answered yet", async () => {
    const limits = { maxFiles: 1_000, maxBytes: 1_000, maxFileBytes: 1_000 };
    const sent = await copyTreeIn(cell, tree, "work/bytes-capped", limits);
    expect(sent.files).toEqual(walkOrder.slice(0, 10));
    expect(sent.bytes).toBe(1_000);
    expect(sent.skipped.map((s) => s.reason)).toEqual(Array(50).fill("over the cap of 1000 bytes"));
    expect(await filesIn(join(brainOf(), "work", "bytes-capped"))).toEqual(walkOrder.slice(0, 10).sort());
  }, 60_000);

  it("reports each file the cell refused as skipped, in the order of the walk, and counts none of them", async () => {
    // Outside work/ the cell takes only .md and .toml files: every .txt of the tree is refused there.
    const limits = { maxFiles: 30, maxBytes: 1_000_000, maxFileBytes: 1_000 };
    const sent = await copyTreeIn(cell, tree, "refusing", limits);
    expect(sent.files).toEqual([]);
    expect(sent.bytes).toBe(0);
    expect(sent.skipped.map((s) => s.path)).toEqual(walkOrder);
    expect(sent.skipped.every((s) => s.reason.startsWith("the cell refused it: forbidden"))).toBe(true);
  }, 60_000);
});
