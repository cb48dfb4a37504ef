import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BWRAP_LIMITS } from "../../src/cells/backends/bwrap-args.js";
import { cellCommand } from "../../src/cells/backends/bwrap-command.js";
import { isPublicRootDir } from "../../src/cells/backends/public-path.js";
import { PACKAGE_ROOT } from "../../src/cells/index.js";

// What a root warden stages for a cell, and what bwrap may bind by itself as the cell's uid.
const asRoot = process.getuid?.() === 0;
let dir = "";

beforeAll(async () => {
  // Under a chain of root-owned directories no one else may write: inside the package when it has one (it is
  // not so in a checkout under /tmp, where anyone may write), else under /run.
  const cache = join(PACKAGE_ROOT, "node_modules/.cache");
  await mkdir(cache, { recursive: true });
  const base = asRoot && !(await isPublicRootDir(cache)) ? "/run" : cache;
  dir = await mkdtemp(join(base, "ironclaw-stage-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!asRoot)("the stage of a bwrap cell", () => {
  it("calls a directory public only when every step to it is root's, closed to writers and open to readers", async () => {
    const pkg = join(dir, "pkg");
    await mkdir(pkg, { mode: 0o755 });
    await chmod(dir, 0o755);
    expect(await isPublicRootDir(pkg)).toBe(true);
    await chmod(pkg, 0o700);
    expect(await isPublicRootDir(pkg)).toBe(false);
    await chmod(pkg, 0o775);
    expect(await isPublicRootDir(pkg)).toBe(false);
    await chmod(pkg, 0o755);
    await chmod(dir, 0o711); // traversable but not listable above: still fine
    expect(await isPublicRootDir(pkg)).toBe(true);
    await chmod(dir, 0o700);
    expect(await isPublicRootDir(pkg)).toBe(false);
    // Under a world-writable directory (/tmp), anyone could have put a link on the way.
    const underTmp = await mkdtemp(join(tmpdir(), "ironclaw-public-"));
    await chmod(underTmp, 0o755);
    expect(await isPublicRootDir(underTmp)).toBe(false);
    await rm(underTmp, { recursive: true });
    expect(await isPublicRootDir(join(dir, "missing"))).toBe(false);
    await chmod(dir, 0o755);
  });

  it("stages the brain always, and the package only when the cell's uid could not bind it itself", async () => {
    const brain = join(dir, "brain");
    await mkdir(brain, { recursive: true });
    const command = {
      packageRoot: PACKAGE_ROOT,
      packageParts: ["package.json"],
      nodeArgs: [],
      limits: DEFAULT_BWRAP_LIMITS,
      allowNetwork: false,
      toolSandbox: false,
      nodePath: "/usr/bin/node",
    };
    const root = { owner: { uid: 61_100, gid: 61_100 }, cgroupProcs: [] };
    const stagedNames = (args: string[]) =>
      args.filter((a) => a.startsWith("/run/ironclaw-cell-stage/")).map((a) => a.split("/").pop());
    const brainDir = { kind: "dir" as const, dir: brain, quotaBytes: 1 };
    const publicPackage = await cellCommand(command, brainDir, root, async () => true);
    expect(stagedNames(publicPackage.args)).toEqual(["brain"]);
    expect(publicPackage.bwrapArgs.join(" ")).toContain(
      `--ro-bind ${PACKAGE_ROOT}/package.json /opt/ironclaw/package.json`,
    );
    const privatePackage = await cellCommand(command, brainDir, root, async () => false);
    expect(stagedNames(privatePackage.args)).toEqual(["brain", "package"]);
    expect(privatePackage.bwrapArgs.join(" ")).toContain(
      "--ro-bind /run/ironclaw-cell-stage/package/package.json /opt/ironclaw/package.json",
    );
  });
});
