import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { warmUpAgentRuntime } from "./blank-warm-up.js";

const savedTmp = process.env.TMPDIR;
let dir = "";
afterEach(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(dir, { recursive: true, force: true });
});

describe("a blank cell's warm-up", () => {
  it("opens and indexes a throwaway brain in the cell's /tmp and leaves nothing of it there", async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-warm-up-"));
    process.env.TMPDIR = dir;
    const seen: string[] = [];
    const watching = setInterval(() => void readdir(dir).then((names) => seen.push(...names)), 1);
    await warmUpAgentRuntime();
    clearInterval(watching);
    // It did work there (its brain showed up while it ran), and removed it all.
    expect(seen.some((name) => name.startsWith(".blank-warm-up-"))).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  }, 30_000);
});
