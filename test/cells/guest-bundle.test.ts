import { spawn } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellHandle,
  createBwrapBackend,
  GUEST_BUNDLE_DIR,
  listCompileCaches,
  PACKAGE_ROOT,
  readGuestBundle,
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

  describe.skipIf(bwrapMissing !== undefined)("in a bwrap cell", () => {
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
