import { spawn } from "node:child_process";
import { chown, mkdir, readdir, stat } from "node:fs/promises";
import { ensureBrainDir } from "../brain-dir.js";
import { assertUserId, type CellBackend, type CellHandle, type CellStartSpec } from "../cell.js";
import { duplexOf, launchChildCell } from "../child-cell.js";
import { defaultRuntime, type GuestRuntime } from "../guest-runtime.js";
import {
  BRAIN_IN_CELL,
  type BwrapLimits,
  buildBwrapArgs,
  DEFAULT_BWRAP_LIMITS,
  PACKAGE_IN_CELL,
} from "./bwrap-args.js";

export interface BwrapBackendOptions {
  runtime?: GuestRuntime;
  limits?: Partial<BwrapLimits>;
  /**
   * The host uid/gid the sandbox runs as when the warden itself is root: never run a cell as host root,
   * even inside a user namespace. Default nobody (65534).
   */
  sandboxUid?: number;
  sandboxGid?: number;
}

/** bubblewrap: every namespace unshared, no network unless allowed, read-only system, rlimits. */
export function createBwrapBackend(options: BwrapBackendOptions = {}): CellBackend {
  const runtime = options.runtime ?? defaultRuntime();
  const limits = { ...DEFAULT_BWRAP_LIMITS, ...options.limits };
  const asRoot = process.getuid?.() === 0;
  const uid = options.sandboxUid ?? 65534;
  const gid = options.sandboxGid ?? 65534;
  return {
    name: "bwrap",
    isolated: true,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      await mkdir(spec.userDir, { recursive: true, mode: 0o755 });
      const brain = await ensureBrainDir(spec.userDir);
      // A brain seeded by root (brain init, a restore) must belong to the sandbox uid, or the cell cannot write.
      if (asRoot && (brain.created || (await stat(brain.dir)).uid !== uid))
        await chownTree(brain.dir, uid, gid);
      const { file, args } = buildBwrapArgs({
        packageRoot: runtime.packageRoot,
        brainDir: brain.dir,
        nodeArgs: [
          ...runtime.nodeArgs(PACKAGE_IN_CELL),
          ...["--channel", "stdio", "--brain", BRAIN_IN_CELL, "--user", spec.userId],
          ...["--handler", spec.handler ?? "agent"],
          ...(spec.maxFrameBytes ? ["--max-frame-bytes", String(spec.maxFrameBytes)] : []),
        ],
        limits,
        allowNetwork: spec.allowNetwork === true,
        ...(spec.env ? { env: spec.env } : {}),
      });
      const child = spawn(file, args, {
        stdio: ["pipe", "pipe", "pipe"],
        env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
        ...(asRoot ? { uid, gid } : {}),
      });
      return launchChildCell({
        backend: "bwrap",
        isolated: true,
        spec,
        child,
        channel: duplexOf(child),
      }).catch((error: Error) => {
        if (asRoot && error.message.includes("Permission denied")) {
          error.message += `\nhint: uid ${uid} must be able to traverse every directory above ${brain.dir}`;
        }
        throw error;
      });
    },
  };
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    await chown(`${entry.parentPath}/${entry.name}`, uid, gid);
  }
}
