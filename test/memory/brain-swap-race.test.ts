import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BrainFileRefusal, readBrainFile } from "../../src/memory/brain-file-access.js";
import { IndexStore } from "../../src/memory/index/index-store.js";
import { Indexer } from "../../src/memory/index/indexer.js";
import { makeTempBrain, openInspector, type TempBrain } from "../support/memory-fixtures.js";
import { WordHashEmbedder } from "../support/word-hash-embedder.js";

/**
 * A guest in its cell swaps, as fast as it can, `note.md` between a regular file and a link to a host file, and
 * the folder `sub/` between a real folder and a link to a host folder. Every rename is atomic, so a reader
 * always finds something; the question is whether host text ever comes back as brain text.
 */
const SWAPPER = `
const fs = require("node:fs");
const [root, host] = process.argv.slice(1);
let n = 0;
fs.writeFileSync(root + "/.swap-file", "# Note\\n\\nbrainword " + n++ + "\\n");
process.stdout.write("ready\\n");
for (;;) {
  fs.renameSync(root + "/.swap-file", root + "/note.md");
  fs.renameSync(root + "/sub", root + "/.sub-real");
  fs.symlinkSync(host, root + "/sub");
  fs.symlinkSync(host + "/secret.md", root + "/.swap-link");
  fs.renameSync(root + "/.swap-link", root + "/note.md");
  fs.unlinkSync(root + "/sub");
  fs.renameSync(root + "/.sub-real", root + "/sub");
  fs.writeFileSync(root + "/.swap-file", "# Note\\n\\nbrainword " + n++ + "\\n");
}`;

const SECRET = "zebraquartz";
const PATHS = ["note.md", "sub/inner.md"];
/** The control stops at this many leaks; the race shows within a few hundred attempts here, at most 50,000. */
const CONTROL_LEAKS = 3;
const CONTROL_ATTEMPTS = 50_000;

let temp: TempBrain;
let root: string;
let host: string;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  temp = await makeTempBrain({ "sub/inner.md": "# Inner\n\nbrainword inner\n" });
  root = temp.brain.root;
  host = join(temp.dir, "host");
  await mkdir(host);
  await writeFile(join(host, "secret.md"), `# Host\n\n${SECRET}\n`);
  await writeFile(join(host, "inner.md"), `# Host\n\n${SECRET}\n`);
  swapper = spawn(process.execPath, ["-e", SWAPPER, root, host], { stdio: ["ignore", "pipe", "inherit"] });
  await once(swapper.stdout as NodeJS.ReadableStream, "data");
});
afterEach(async () => {
  if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
    swapper.kill("SIGKILL");
    await once(swapper, "exit");
  }
  await temp.cleanup();
});

/** The host's old way: check a path (lstat says regular file, or folder), then read by that path. */
async function readByPath(path: string): Promise<string | undefined> {
  const absolute = join(root, path);
  try {
    if (path.includes("/") && !(await lstat(join(root, "sub"))).isDirectory()) return undefined;
    if (!(await lstat(absolute)).isFile()) return undefined;
    return await readFile(absolute, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

describe("a guest swapping brain files for links while the host reads the brain", () => {
  it("leaks host files to a check-then-read by path, and never to the host's confined reader or indexer", async () => {
    // Positive control: the race is real on this machine, with this swapper, now.
    let controlLeaks = 0;
    let controlAttempts = 0;
    while (controlLeaks < CONTROL_LEAKS && controlAttempts < CONTROL_ATTEMPTS) {
      controlAttempts++;
      for (const path of PATHS) if ((await readByPath(path))?.includes(SECRET)) controlLeaks++;
    }
    expect(controlLeaks).toBeGreaterThanOrEqual(CONTROL_LEAKS);

    // The confined reader gets at least as many tries as the control needed, and several hundred besides.
    const attempts = Math.max(2_000, controlAttempts * 3);
    const confined = { leaks: 0, brain: 0, refused: 0 };
    for (let i = 0; i < attempts; i++) {
      for (const path of PATHS) {
        try {
          const text = readBrainFile(root, path, 4096)?.bytes.toString("utf8");
          if (text?.includes(SECRET)) confined.leaks++;
          if (text?.includes("brainword")) confined.brain++;
        } catch (error) {
          if (!(error instanceof BrainFileRefusal)) throw error;
          confined.refused++;
        }
      }
    }
    // It read the guest's real files and met its links (so the probe ran), and never returned host text.
    expect(confined.leaks).toBe(0);
    expect(confined.brain).toBeGreaterThan(0);
    expect(confined.refused).toBeGreaterThan(0);

    const store = IndexStore.open(temp.brain.databaseFile);
    const inspector = openInspector(temp.brain.databaseFile);
    try {
      const indexer = new Indexer(temp.brain, store, new WordHashEmbedder());
      const secretChunks = inspector.prepare("SELECT count(*) AS n FROM chunks WHERE content LIKE ?");
      let skippedLinks = 0;
      const count = (text: string) => (secretChunks.get(`%${text}%`) as { n: number }).n;
      let leakedPasses = 0;
      let indexedPasses = 0;
      for (let pass = 0; pass < 300; pass++) {
        const report = await indexer.indexAll();
        skippedLinks += report.skipped.length;
        if (count(SECRET) > 0) leakedPasses++;
        if (count("brainword") > 0) indexedPasses++;
      }
      // Passes met the guest's links and indexed its real notes in between, and no pass stored host text.
      expect(leakedPasses).toBe(0);
      expect(skippedLinks).toBeGreaterThan(0);
      expect(indexedPasses).toBeGreaterThan(0);
    } finally {
      inspector.close();
      store.close();
    }
  }, 120_000);
});
