import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CellHandle, createBwrapBackend, defaultRuntime } from "../../cells/index.js";
import { copyTreeOut } from "./tree-transfer.js";

// Several reads are on their way from the cell at once: what lands on the host, what the report says and what
// the caps let through must be exactly what a one-file-at-a-time copy gives.
let home = "";
let cell: CellHandle;
const brainOf = () => join(home, "user", "brain");
/** The cell's files in the order of the walk (names sorted, folder by folder). */
const walkOrder: string[] = [];

/** The real cell, with the reads it is answering at once counted: the most seen in flight together. */
function counted(real: CellHandle): { cell: CellHandle; most: () => number } {
  let reading = 0;
  let most = 0;
  const call: CellHandle["call"] = async (body, options) => {
    const isRead = body.type === "FileOpRequest" && body.op === "read";
    if (isRead) most = Math.max(most, ++reading);
    try {
      return await real.call(body, options);
    } finally {
      if (isRead) reading -= 1;
    }
  };
  return { cell: { ...real, call } as CellHandle, most: () => most };
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-tree-out-window-"));
  cell = await createBwrapBackend({ runtime: defaultRuntime(), brainImages: false }).start({
    userId: "tree-out-window-user",
    userDir: join(home, "user"),
    handler: "echo",
    startTimeoutMs: 60_000,
  });
  const work = join(brainOf(), "work");
  for (const folder of ["a", "b/deep", "c"]) await mkdir(join(work, folder), { recursive: true });
  const files = [
    ...Array.from({ length: 20 }, (_, i) => `a/f${String(i).padStart(2, "0")}.txt`),
    ...Array.from({ length: 20 }, (_, i) => `b/deep/g${String(i).padStart(2, "0")}.txt`),
    ...Array.from({ length: 20 }, (_, i) => `c/h${String(i).padStart(2, "0")}.txt`),
  ];
  for (const file of files) await writeFile(join(work, file), `${file}\n`.padEnd(100, "."));
  walkOrder.push(...files);
  // Between the files: a link and a .git, reported where the walk met them.
  await symlink("/etc/passwd", join(work, "b", "passwd"));
  await mkdir(join(work, "c", ".git"));
  await writeFile(join(work, "c", ".git", "config"), "[core]\n\tfsmonitor = /tmp/evil\n");
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

describe("a tree copied out of a cell with reads in flight together", () => {
  it("keeps eight reads on their way and lands every file byte for byte, reported in the order of the walk", async () => {
    const host = join(home, "host-all");
    await mkdir(host);
    const watched = counted(cell);
    const back = await copyTreeOut(watched.cell, "work", host);
    expect(watched.most()).toBe(8);
    expect(back.files).toEqual(walkOrder);
    expect(back.bytes).toBe(60 * 100);
    expect(back.skipped).toEqual([
      { path: "b/passwd", reason: "a symbolic link is not copied" },
      { path: "c/.git", reason: "a .git is never copied to the host" },
    ]);
    expect(await filesIn(host)).toEqual([...walkOrder].sort());
    for (const file of walkOrder)
      expect(await readFile(join(host, file), "utf8")).toBe(
        await readFile(join(brainOf(), "work", file), "utf8"),
      );
  }, 60_000);

  it("writes no file past the file cap, whatever order the reads in flight come back in", async () => {
    const host = join(home, "host-files-capped");
    await mkdir(host);
    const limits = { maxFiles: 25, maxBytes: 1_000_000, maxFileBytes: 1_000 };
    const back = await copyTreeOut(cell, "work", host, { limits });
    expect(back.files).toEqual(walkOrder.slice(0, 25));
    expect(back.skipped).toEqual([
      ...walkOrder.slice(25, 40).map((path) => ({ path, reason: "over the cap of 25 files" })),
      { path: "b/passwd", reason: "a symbolic link is not copied" },
      { path: "c/.git", reason: "a .git is never copied to the host" },
      ...walkOrder.slice(40).map((path) => ({ path, reason: "over the cap of 25 files" })),
    ]);
    expect(await filesIn(host)).toEqual(walkOrder.slice(0, 25).sort());
  }, 60_000);

  it("writes no byte past the byte cap, counted on what was read before anything reaches the host", async () => {
    const host = join(home, "host-bytes-capped");
    await mkdir(host);
    // Room for eight reads at once (a whole file's worth each), but not for every file.
    const limits = { maxFiles: 1_000, maxBytes: 1_600, maxFileBytes: 200 };
    const back = await copyTreeOut(cell, "work", host, { limits });
    expect(back.files).toEqual(walkOrder.slice(0, 16));
    expect(back.bytes).toBe(1_600);
    expect(back.skipped.filter((s) => s.path.endsWith(".txt"))).toEqual(
      walkOrder.slice(16).map((path) => ({ path, reason: "over the cap of 1600 bytes" })),
    );
    expect(await filesIn(host)).toEqual(walkOrder.slice(0, 16).sort());
  }, 60_000);

  it("keeps a host file whose cell copy is over the file cap, and removes only what the cell deleted", async () => {
    const host = join(home, "host-removing");
    await mkdir(join(host, "a"), { recursive: true });
    await writeFile(join(host, "a", "gone.txt"), "deleted in the cell\n");
    await writeFile(join(host, "a", "f05.txt"), "the host's own\n");
    await writeFile(join(brainOf(), "work", "a", "f05.txt"), "x".repeat(300));
    try {
      const limits = { maxFiles: 1_000, maxBytes: 1_000_000, maxFileBytes: 200 };
      const removeMissing = ["a/gone.txt", "a/f05.txt"];
      const back = await copyTreeOut(cell, "work", host, { limits, removeMissing });
      expect(back.removed).toEqual(["a/gone.txt"]);
      expect(back.skipped[0]).toEqual({ path: "a/f05.txt", reason: "300 bytes is over the transfer cap" });
      expect(back.files).toEqual(walkOrder.filter((path) => path !== "a/f05.txt"));
      expect(await readFile(join(host, "a", "f05.txt"), "utf8")).toBe("the host's own\n");
    } finally {
      await writeFile(join(brainOf(), "work", "a", "f05.txt"), "a/f05.txt\n".padEnd(100, "."));
    }
  }, 60_000);
});
