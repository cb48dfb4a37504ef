import { spawn } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bundleRuntime,
  bwrapNodeOptions,
  type CellHandle,
  createBwrapBackend,
  DEFAULT_BWRAP_LIMITS,
  GUEST_BUNDLE_DIR,
  listCompileCaches,
  makeStartupSnapshots,
  PACKAGE_ROOT,
  readGuestBundle,
  startupSnapshotName,
  usableStartupSnapshot,
  warmCompileCache,
} from "../../src/cells/index.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";
import { removeTestBundle, TEST_BUNDLE_DIR, testBundleRuntime } from "./test-bundle.js";

const bundleDir = join(PACKAGE_ROOT, TEST_BUNDLE_DIR);
const bwrapMissing = SUITE_BACKENDS.bwrap?.().unavailable;
let home = "";
const started: CellHandle[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-guest-bundle-"));
  await chmod(home, 0o755);
  await testBundleRuntime();
}, 120_000);
afterAll(async () => {
  await Promise.all(started.map((c) => c.stop({ timeoutMs: 5_000 })));
  await rm(home, { recursive: true, force: true });
  await removeTestBundle();
}, 60_000);

/** Runs the bundle's loader as a plain process with the echo handler; resolves with its stderr once it answered. */
async function runLoader(env: Record<string, string> = {}): Promise<{ answered: boolean; stderr: string }> {
  const child = spawn(
    process.execPath,
    [join(bundleDir, "irowclaw.cjs"), "--user", "u", "--handler", "echo", "--brain", home],
    {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", ...env },
    },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  // The first frame is the Heartbeat: the runtime loaded, compiled and started serving.
  const answered = await new Promise<boolean>((resolve) => {
    child.stdout.once("data", () => resolve(true));
    child.once("exit", () => resolve(false));
  });
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  return { answered, stderr };
}

describe("the bundled inmate", () => {
  it("is one runtime file and its loader, with the packages it still loads from node_modules listed", async () => {
    const manifest = await readGuestBundle(bundleDir);
    expect(manifest?.entry).toBe("irowclaw.cjs");
    expect(manifest?.modules).toBeGreaterThan(100);
    expect(manifest?.externals).toEqual(expect.arrayContaining(["better-sqlite3", "sqlite-vec"]));
    expect(manifest?.packages).toEqual(expect.arrayContaining(["node_modules/better-sqlite3"]));
    // zod, pino, linkedom and the rest live inside the runtime: none of them is listed.
    expect(manifest?.packages.some((p) => /\/(zod|pino|linkedom)$/.test(p))).toBe(false);
    const files = await readdir(bundleDir);
    expect(files).toEqual(expect.arrayContaining(["irowclaw.cjs", "runtime.cjs", "bundle.json"]));
    expect(GUEST_BUNDLE_DIR).toBe("dist/cell");
  });

  it("starts from the code cache made for its flags, and says so and still starts when one does not fit", async () => {
    const [warmed] = await warmCompileCache(bundleDir, [""]);
    expect(warmed?.ok, warmed?.detail).toBe(true);
    const [cache] = await listCompileCaches(bundleDir);
    expect(cache).toBeDefined();
    const fits = await runLoader();
    expect(fits.answered).toBe(true);
    expect(fits.stderr).not.toContain("compiling instead");
    // The probe works: a cache V8 cannot use (another build's, here garbage) is reported, then compiled past.
    const good = await readFile(join(bundleDir, cache as string));
    await writeFile(join(bundleDir, cache as string), Buffer.alloc(good.length, 7));
    try {
      const misfit = await runLoader();
      expect(misfit.answered).toBe(true);
      expect(misfit.stderr).toContain("does not fit this node; compiling instead");
    } finally {
      await writeFile(join(bundleDir, cache as string), good);
    }
  }, 120_000);

  it("makes a startup snapshot the host's node loads, and never offers one it does not", async () => {
    const flags = bwrapNodeOptions(DEFAULT_BWRAP_LIMITS);
    const [made] = await makeStartupSnapshots(PACKAGE_ROOT, bundleDir, [flags]);
    expect(made?.ok, made?.detail).toBe(true);
    expect(await usableStartupSnapshot(PACKAGE_ROOT, TEST_BUNDLE_DIR, process.execPath, flags)).toBe(
      join(TEST_BUNDLE_DIR, startupSnapshotName(flags)),
    );
    // None was made for other flags: the loader it is.
    expect(
      await usableStartupSnapshot(PACKAGE_ROOT, TEST_BUNDLE_DIR, process.execPath, "--stack-size=900"),
    ).toBe(undefined);
    // A blob that is there but that node cannot load (V8 would end the cell) is refused by the probe.
    const other = "--max-old-space-size=222";
    await writeFile(join(bundleDir, startupSnapshotName(other)), Buffer.alloc(4096, 7));
    expect(await usableStartupSnapshot(PACKAGE_ROOT, TEST_BUNDLE_DIR, process.execPath, other)).toBe(
      undefined,
    );
    await rm(join(bundleDir, startupSnapshotName(other)));
  }, 120_000);

  it("refuses to snapshot a runtime that reads its environment or draws UUIDs while loading", async () => {
    const fake = await mkdtemp(join(PACKAGE_ROOT, "node_modules/.cache/ironclaw-fake-bundle-"));
    try {
      const attempt = async (source: string) => {
        await writeFile(join(fake, "runtime.cjs"), source);
        const [result] = await makeStartupSnapshots(PACKAGE_ROOT, fake, [""]);
        return result;
      };
      const main = "exports.runMain = () => {};";
      const env = await attempt(`const home = process.env.HOME; ${main}`);
      expect(env).toMatchObject({
        ok: false,
        detail: expect.stringContaining("reads HOME from the environment"),
      });
      const uuid = await attempt(`require("node:crypto").randomUUID(); ${main}`);
      expect(uuid).toMatchObject({ ok: false, detail: expect.stringContaining("draws random UUIDs") });
      const native = await attempt(`require("better-sqlite3"); ${main}`);
      expect(native).toMatchObject({ ok: false, detail: expect.stringContaining("loads better-sqlite3") });
      // The probe works: the same runtime without those loads is snapshotted.
      expect(await attempt(main)).toMatchObject({ ok: true });
      expect((await readdir(fake)).some((f) => f.endsWith(".blob"))).toBe(true);
    } finally {
      await rm(fake, { recursive: true, force: true });
    }
  }, 120_000);

  describe.skipIf(bwrapMissing !== undefined)("in a bwrap cell", () => {
    it("starts from the startup snapshot: a shell sees node's flags, echo answers, the agent is Ready", async () => {
      const [made] = await makeStartupSnapshots(PACKAGE_ROOT, bundleDir, [
        bwrapNodeOptions(DEFAULT_BWRAP_LIMITS),
      ]);
      expect(made?.ok, made?.detail).toBe(true);
      const cells = (snapshots: boolean) =>
        createBwrapBackend({
          runtime: bundleRuntime(PACKAGE_ROOT, TEST_BUNDLE_DIR, { snapshots }),
          onWarning: () => {},
        });
      const [snapshotted, loaded] = [cells(true), cells(false)];
      const nodeLine = "tr '\\0' ' ' < /proc/$PPID/cmdline";
      const shell = await snapshotted.start({
        userId: "snap-shell",
        userDir: join(home, "snap-shell"),
        handler: "shell",
      });
      started.push(shell);
      expect((await shellIn(shell, nodeLine)).stdout).toContain("--snapshot-blob /opt/ironclaw/");
      // The probe works: without snapshots the same runtime starts through its loader.
      const plain = await loaded.start({
        userId: "plain-shell",
        userDir: join(home, "plain-shell"),
        handler: "shell",
      });
      started.push(plain);
      const plainLine = (await shellIn(plain, nodeLine)).stdout;
      expect(plainLine).toContain("irowclaw.cjs");
      expect(plainLine).not.toContain("--snapshot-blob");
      const echo = await snapshotted.start({
        userId: "snap-echo",
        userDir: join(home, "snap-echo"),
        handler: "echo",
      });
      started.push(echo);
      expect(await echo.call({ type: "UserMessage", text: "from the heap" })).toMatchObject({
        type: "TurnComplete",
        text: "from the heap",
      });
      // The agent loads what the snapshot could not hold (native SQLite, its handler) after it is deserialized.
      const agent = await snapshotted.start({
        userId: "snap-agent",
        userDir: join(home, "snap-agent"),
        handler: "agent",
      });
      started.push(agent);
      expect(await agent.call({ type: "Hello", providers: [] }, { timeoutMs: 60_000 })).toMatchObject({
        type: "Ready",
        handler: "agent",
      });
      const search = await agent.call(
        { type: "QueryRequest", query: { kind: "memory_status" } },
        { timeoutMs: 60_000 },
      );
      expect(search.type).toBe("QueryResult");
    }, 180_000);

    it("answers as echo and greets as agent with Ready", async () => {
      const backend = createBwrapBackend({ runtime: await testBundleRuntime(), onWarning: () => {} });
      const echo = await backend.start({ userId: "echo", userDir: join(home, "echo"), handler: "echo" });
      started.push(echo);
      expect(await echo.call({ type: "UserMessage", text: "one bundle" })).toMatchObject({
        type: "TurnComplete",
        text: "one bundle",
      });
      const agent = await backend.start({ userId: "agent", userDir: join(home, "agent"), handler: "agent" });
      started.push(agent);
      const ready = await agent.call({ type: "Hello", providers: [] }, { timeoutMs: 60_000 });
      expect(ready).toMatchObject({ type: "Ready", handler: "agent" });
    }, 120_000);

    it("sees only the bundle and the packages it lists of the host's package", async () => {
      const backend = createBwrapBackend({ runtime: await testBundleRuntime(), onWarning: () => {} });
      const cell = await backend.start({ userId: "looker", userDir: join(home, "looker"), handler: "shell" });
      started.push(cell);
      // The test's bundle lies under node_modules/.cache (ls leaves dot names out); the built one under dist/cell.
      const out = await shellIn(cell, "ls /opt/ironclaw; echo --; ls /opt/ironclaw/node_modules");
      const [top = [], modules = []] = out.stdout.split("--\n").map((part) => part.trim().split("\n"));
      // embeddings/ is the host's word table, bound beside the package (IRONCLAW_HOME in the cell).
      expect(top.filter((name) => name !== "embeddings")).toEqual(["node_modules", "package.json"]);
      const manifest = await readGuestBundle(bundleDir);
      expect([...modules].sort()).toEqual(
        manifest?.packages.map((p) => p.replace("node_modules/", "")).sort(),
      );
      // The probe works: the host's node_modules holds much more (zod among it), the cell does not.
      const hostModules = await readdir(join(PACKAGE_ROOT, "node_modules"));
      expect(hostModules).toContain("zod");
      expect(modules).not.toContain("zod");
    }, 120_000);
  });
});
