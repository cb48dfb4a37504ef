// The microVM's startup snapshot, made by the image build inside the image's own VM: cells start from it, and
// a snapshot the guest's node refuses (here: one made on the host, whose CPU differs from QEMU's) falls back
// to the loader instead of failing the start.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createMicrovmBackend,
  type ImagePaths,
  imagePaths,
  MICROVM_SNAPSHOT_NAME,
  PACKAGE_ROOT,
  readImageStatus,
} from "../../src/cells/index.js";
import { requireTestImage, TEST_IMAGE_DIR } from "../cells/suite-backends.js";

const paths = imagePaths(TEST_IMAGE_DIR);
let home = "";

beforeAll(async () => {
  requireTestImage();
  home = await mkdtemp(join(tmpdir(), "ironclaw-vm-snapshot-"));
  await chmod(home, 0o755);
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** Starts one echo cell from `image`, lists its brain, stops it, and returns its traced console. */
async function bootTraced(image: ImagePaths, user: string): Promise<{ console: string; listed: boolean }> {
  const consoleDir = join(home, `console-${user}`);
  const backend = createMicrovmBackend({
    paths: image,
    accel: "auto",
    allowTcg: true,
    brainDiskMiB: 64,
    consoleDir,
    onWarning: () => {},
  });
  await mkdir(consoleDir, { recursive: true });
  const cell = await backend.start({
    userId: user,
    userDir: join(home, user),
    handler: "echo",
    startTimeoutMs: 180_000,
  });
  let listed = false;
  try {
    const reply = await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 120_000 });
    listed = reply.type === "FileOpResult";
  } finally {
    await cell.stop();
  }
  return { console: await readFile(join(consoleDir, `${user}.console.log`), "utf8"), listed };
}

describe("the microVM's startup snapshot", () => {
  it("is made by the image build in the image's own VM, and cells start from it", async () => {
    const status = await readImageStatus(paths);
    expect(status.manifest?.startup_snapshot).toBe("made");
    // The same boot asked whether tools can nest a sandbox there; bwrap is in the image wherever the host has it.
    expect(status.manifest?.tool_sandbox).toBe(existsSync("/usr/bin/bwrap") ? "bwrap" : "none");
    const boot = await bootTraced(paths, "snap");
    expect(boot.listed).toBe(true);
    expect(boot.console).toContain("starting irowclaw from its startup snapshot");
    expect(boot.console).toMatch(/irowclaw: runtime deserialized after \d+ ms in node \(startup snapshot\)/);
    expect(boot.console).not.toContain("node refused the startup snapshot");
  }, 300_000);

  it("falls back to the loader when the guest's node refuses the snapshot", async () => {
    // The same image with the host's bwrap snapshot in the blob's place: made on another CPU, with other flags.
    const hostBlobs = (await readdir(join(PACKAGE_ROOT, "dist/cell"))).filter((f) => f.endsWith(".blob"));
    expect(hostBlobs.length, "npm run build makes the host's startup snapshot").toBeGreaterThan(0);
    const dir = join(home, "refusing-image");
    await mkdir(dir);
    const copy = imagePaths(dir);
    await symlink(paths.kernel, copy.kernel);
    await symlink(paths.initramfs, copy.initramfs);
    await writeFile(copy.manifest, await readFile(paths.manifest));
    execFileSync("cp", ["--sparse=always", paths.rootfs, copy.rootfs]);
    const commands = join(home, "debugfs.cmds");
    await writeFile(
      commands,
      [
        "cd /opt/ironclaw/dist/cell",
        `rm ${MICROVM_SNAPSHOT_NAME}`,
        `write ${join(PACKAGE_ROOT, "dist/cell", hostBlobs[0] ?? "")} ${MICROVM_SNAPSHOT_NAME}`,
        `sif ${MICROVM_SNAPSHOT_NAME} mode 0100644`,
        "",
      ].join("\n"),
    );
    execFileSync("debugfs", ["-w", "-f", commands, copy.rootfs], { stdio: "pipe" });
    const boot = await bootTraced(copy, "refused");
    expect(boot.console).toContain("starting irowclaw from its startup snapshot");
    expect(boot.console).toContain("node refused the startup snapshot; starting through the loader");
    expect(boot.console).toMatch(/irowclaw: runtime compiled after \d+ ms in node/);
    expect(boot.listed).toBe(true);
  }, 300_000);
});
