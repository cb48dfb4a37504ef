import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  closeDir,
  closeFile,
  identityOf,
  type OpenDir,
  openDirectory,
  openFile,
  PathRefusal,
  pathComponents,
  type ReadOnlyDirs,
  readOpenFile,
  replaceOpenFile,
} from "./descriptor-walk.js";
import { isWithin, realpathOfDeepestExisting } from "./real-path.js";

let base = "";
let root = "";
let config = "";
let readOnly: ReadOnlyDirs;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "ironclaw-walk-"));
  root = join(base, "root");
  config = join(root, "config");
  mkdirSync(join(root, "notes"), { recursive: true });
  mkdirSync(config);
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside/secret.txt"), "secret");
  writeFileSync(join(config, "irowclaw.toml"), "[tools]\n");
  readOnly = { ids: [identityOf(config) ?? { dev: -1, ino: -1 }], paths: ["config"] };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Writes `text` to a root-relative path through the walk, creating folders; the refusal's rule when refused. */
function writeThroughWalk(path: string, text: string): string {
  try {
    const parts = pathComponents(path);
    const dir = openDirectory(root, parts.slice(0, -1), { create: true, readOnly, shown: path });
    if (!dir) return "missing";
    try {
      const file = openFile(dir, parts.at(-1) as string, "create");
      if (!file) return "missing";
      replaceOpenFile(file, text);
      closeFile(file);
      return "written";
    } finally {
      closeDir(dir);
    }
  } catch (error) {
    if (error instanceof PathRefusal) return error.rule;
    throw error;
  }
}

function readThroughWalk(path: string): string | undefined {
  const parts = pathComponents(path);
  const dir = openDirectory(root, parts.slice(0, -1), { shown: path });
  if (!dir) return undefined;
  try {
    const file = openFile(dir, parts.at(-1) as string, "read");
    if (!file) return undefined;
    try {
      return readOpenFile(file, 1024).toString("utf8");
    } finally {
      closeFile(file);
    }
  } finally {
    closeDir(dir);
  }
}

describe("the descriptor walk", () => {
  it("creates folders and files below the root and reads them back", () => {
    expect(writeThroughWalk("notes/deep/er/a.md", "hello")).toBe("written");
    expect(readThroughWalk("notes/deep/er/a.md")).toBe("hello");
    expect(writeThroughWalk("notes/deep/er/a.md", "hi")).toBe("written");
    expect(readFileSync(join(root, "notes/deep/er/a.md"), "utf8")).toBe("hi");
  });

  it("refuses .. and NUL before touching anything", () => {
    expect(() => pathComponents("notes/../../outside/secret.txt")).toThrow(PathRefusal);
    expect(() => pathComponents("a\0b")).toThrow(/NUL/);
    expect(pathComponents("./notes//a.md")).toEqual(["notes", "a.md"]);
  });

  it("follows no symlink: not a symlinked folder, not a symlinked file, not a dangling one", () => {
    symlinkSync(join(base, "outside"), join(root, "up"));
    symlinkSync(join(base, "outside/secret.txt"), join(root, "leak.md"));
    symlinkSync(join(base, "outside/planted.txt"), join(root, "dangling.md"));
    symlinkSync(join(root, "notes"), join(root, "inside"));
    expect(() => readThroughWalk("up/secret.txt")).toThrow(/symlink/);
    expect(() => readThroughWalk("leak.md")).toThrow(/symlink/);
    expect(writeThroughWalk("dangling.md", "x")).toMatch(/symlink/);
    expect(writeThroughWalk("up/new.txt", "x")).toMatch(/symlink/);
    expect(writeThroughWalk("inside/a.md", "x")).toMatch(/symlink/);
    expect(existsSync(join(base, "outside/planted.txt"))).toBe(false);
    expect(readdirSync(join(base, "outside"))).toEqual(["secret.txt"]);
  });

  it("refuses writes in a read-only folder, by place and by identity after a rename", () => {
    expect(writeThroughWalk("config/irowclaw.toml", "egress = 1")).toMatch(/read-only/);
    expect(writeThroughWalk("config/agents/x.toml", "x")).toMatch(/read-only/);
    renameSync(config, join(root, "notes/disguised"));
    expect(writeThroughWalk("notes/disguised/irowclaw.toml", "egress = 1")).toMatch(/read-only/);
    expect(readFileSync(join(root, "notes/disguised/irowclaw.toml"), "utf8")).toBe("[tools]\n");
    expect(existsSync(join(root, "notes/disguised/agents"))).toBe(false);
  });

  it("refuses to write a file with another hard link, which could be a protected file", () => {
    linkSync(join(config, "irowclaw.toml"), join(root, "notes/alias.toml"));
    expect(writeThroughWalk("notes/alias.toml", "egress = 1")).toMatch(/hard link/);
    expect(readFileSync(join(config, "irowclaw.toml"), "utf8")).toBe("[tools]\n");
  });

  it.skipIf(spawnSync("bwrap", ["--unshare-user", "--ro-bind", "/", "/", "true"]).status !== 0)(
    "fails closed where /proc is not mounted, and works where it is",
    () => {
      const probe = (proc: string[]) =>
        spawnSync(
          "bwrap",
          [
            ...["--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", ...proc],
            ...[process.execPath, "--import", "tsx", "-e"],
            `import("./src/core/descriptor-walk.ts").then((m) => { try { m.requireDescriptorPaths();
             console.log("usable") } catch (e) { console.log(e.message) } })`,
          ],
          { encoding: "utf8", timeout: 30_000, cwd: join(import.meta.dirname, "../..") },
        ).stdout.trim();
      expect(probe(["--tmpfs", "/proc"])).toMatch(/\/proc is not mounted.*refused/);
      expect(probe(["--proc", "/proc"])).toBe("usable");
    },
    40_000,
  );

  it("keeps working in the folder it opened when that folder's name is swapped for a link meanwhile", () => {
    const dir = openDirectory(root, ["notes"], { readOnly, shown: "notes" }) as OpenDir;
    renameSync(join(root, "notes"), join(root, "moved"));
    symlinkSync(config, join(root, "notes"));
    const file = openFile(dir, "a.md", "create");
    if (!file) throw new Error("not created");
    replaceOpenFile(file, "x");
    closeFile(file);
    closeDir(dir);
    expect(readFileSync(join(root, "moved/a.md"), "utf8")).toBe("x");
    expect(readdirSync(config)).toEqual(["irowclaw.toml"]);
  });
});

/**
 * A second process flips `root/flip` between a real folder, a link to `config/` and nothing as fast as it can,
 * while this one writes `flip/landed-<n>.toml`. Tallies the outcomes the writer reports and counts what landed in
 * config/; outcomes of every kind show the writer met the link, the folder and the gap.
 */
async function raceAgainstFlipper(
  write: (path: string) => string,
  ms: number,
  stopOnLanding = false,
): Promise<{ outcomes: Record<string, number>; landed: number; attempts: number }> {
  mkdirSync(join(root, "notes/real"), { recursive: true });
  symlinkSync(config, join(root, "notes/link"));
  const flipper: ChildProcess = spawn(
    process.execPath,
    [
      "-e",
      `const fs=require("fs");const d=process.argv[1];
       for(;;){try{fs.renameSync(d+"/notes/real",d+"/flip");fs.renameSync(d+"/flip",d+"/notes/real");
       fs.renameSync(d+"/notes/link",d+"/flip");fs.renameSync(d+"/flip",d+"/notes/link");}catch{}}`,
      root,
    ],
    { stdio: "ignore" },
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const outcomes: Record<string, number> = {};
  let attempts = 0;
  const end = Date.now() + ms;
  try {
    while (Date.now() < end) {
      attempts++;
      const outcome = write(`flip/landed-${attempts}.toml`);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (stopOnLanding && existsSync(join(config, `landed-${attempts}.toml`))) break;
      if (attempts % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    // Gone before anything is counted or removed: a flipper still renaming while afterEach deletes the tree
    // made that removal fail (ENOTEMPTY) on a loaded host.
    const exited = new Promise((resolve) => flipper.once("exit", resolve));
    if (flipper.exitCode === null && flipper.signalCode === null) {
      flipper.kill("SIGKILL");
      await exited;
    }
  }
  const landed = readdirSync(config).filter((n) => n.startsWith("landed-")).length;
  return { outcomes, landed, attempts };
}

describe("a link flipped while paths are used", () => {
  it("control: checking the path and opening it again lets writes land in the read-only folder", async () => {
    const checkThenOpen = (path: string) => {
      const absolute = join(root, path);
      try {
        const real = realpathOfDeepestExisting(absolute);
        if (!isWithin(root, real) || isWithin(config, real)) return "refused";
        writeFileSync(absolute, "egress = 1");
        return "written";
      } catch {
        return "failed";
      }
    };
    const race = await raceAgainstFlipper(checkThenOpen, 3_000, true);
    expect(race.landed).toBeGreaterThan(0);
  }, 15_000);

  it("the descriptor walk never lands a write there, while the same race writes into the real folder", async () => {
    const walk = (path: string) => {
      const parts = pathComponents(path);
      try {
        const dir = openDirectory(root, parts.slice(0, -1), { readOnly, shown: path });
        if (!dir) return "missing";
        try {
          const file = openFile(dir, parts.at(-1) as string, "create");
          if (!file) return "missing";
          replaceOpenFile(file, "egress = 1");
          closeFile(file);
          return "written";
        } finally {
          closeDir(dir);
        }
      } catch (error) {
        if (error instanceof PathRefusal) return error.rule.includes("symlink") ? "link" : error.rule;
        throw error;
      }
    };
    const race = await raceAgainstFlipper(walk, 3_000);
    expect(race.landed).toBe(0);
    // The probe met every state of the flipping path: it wrote when it was the folder, and was refused at the link.
    expect(race.outcomes.written).toBeGreaterThan(0);
    expect(race.outcomes.link).toBeGreaterThan(0);
  }, 15_000);
});
