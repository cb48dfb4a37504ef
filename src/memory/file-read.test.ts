import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../core/index.js";
import { readFileForIndex } from "./file-read.js";
import { embeddingInput } from "./stored-chunk.js";

const limits = { maxFileBytes: 1000, maxBytes: 2048 };
const note = "# Garden\n\n## Herbs\n\nBasil hates cold.\n";
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-file-read-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readFileForIndex", () => {
  it("chunks a file and gives each chunk the embedder's input and its hash", async () => {
    await writeFile(join(dir, "garden.md"), note);
    const read = readFileForIndex(dir, { path: "garden.md", mtimeMs: 0, size: 0 }, limits);
    if (read.kind !== "chunked") throw new Error(`expected chunks, got ${read.kind}`);
    expect(read).toMatchObject({ path: "garden.md", hash: sha256Hex(note), size: Buffer.byteLength(note) });
    // Described by what was read, not by the listing it was given.
    expect(read.mtimeMs).toBeGreaterThan(0);
    expect(read.chunks.map((c) => c.headings)).toEqual([["Garden", "Herbs"]]);
    const [chunk] = read.chunks;
    expect(chunk?.input).toBe(embeddingInput(["Garden", "Herbs"], "## Herbs\n\nBasil hates cold."));
    expect(chunk?.embedHash).toBe(sha256Hex(chunk?.input ?? ""));
  });

  it("does not chunk a file whose content has the hash the index gave", async () => {
    await writeFile(join(dir, "garden.md"), note);
    const file = { path: "garden.md", mtimeMs: 0, size: 0 };
    expect(readFileForIndex(dir, { ...file, indexedHash: sha256Hex(note) }, limits)).toMatchObject({
      kind: "same",
      hash: sha256Hex(note),
    });
    expect(readFileForIndex(dir, { ...file, indexedHash: sha256Hex("older") }, limits).kind).toBe("chunked");
  });

  it("reports a vanished file as gone, and a refused one with the rule it broke", async () => {
    expect(readFileForIndex(dir, { path: "gone.md", mtimeMs: 0, size: 0 }, limits)).toEqual({
      kind: "gone",
      path: "gone.md",
    });
    await writeFile(join(dir, "big.md"), "x".repeat(1001));
    expect(readFileForIndex(dir, { path: "big.md", mtimeMs: 0, size: 0 }, limits)).toEqual({
      kind: "refused",
      path: "big.md",
      rule: "is larger than 1000 bytes",
    });
    await symlink("/etc/hostname", join(dir, "out.md"));
    expect(readFileForIndex(dir, { path: "out.md", mtimeMs: 0, size: 0 }, limits).kind).toBe("refused");
  });
});
