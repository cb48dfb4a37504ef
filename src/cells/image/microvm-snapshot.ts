// The microVM's startup snapshot. A snapshot made on the host is refused by the guest's node: V8's cache tag
// counts the CPU's features, and QEMU's emulated CPU has others than the host's. So the image build boots the
// image it is building once, with `ironclaw.build=snapshot`, and node makes the snapshot in there, on the
// kernel and CPU every cell of this image gets (cell-init, init-scripts.ts). The result travels back on a
// scratch ext4 disk, read with debugfs, and goes into the rootfs beside the runtime.
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { runProgram } from "../../core/index.js";
import { microvmArgs } from "../backends/microvm-command.js";
import { firstLine, QEMU_BINARY } from "../host-probe.js";
import { PACKAGE_IN_CELL } from "../startup-snapshot.js";
import { GUEST_BUNDLE_DIR } from "./guest-bundle.js";
import type { ImagePaths } from "./image-paths.js";
import { SNAPSHOT_BUILD_FILES } from "./init-scripts.js";
import { writeSnapshotEntry } from "./startup-snapshot-build.js";

/** The blob's name in the image's bundle directory; cell-init starts from it when it is there. */
export const MICROVM_SNAPSHOT_NAME = "runtime.microvm.blob";

/** Where cell-init looks for the snapshot inside the guest. */
export function microvmSnapshotPath(): string {
  return join(PACKAGE_IN_CELL, GUEST_BUNDLE_DIR, MICROVM_SNAPSHOT_NAME);
}

export interface MicrovmSnapshotOptions {
  /** The image parts to boot: the build's own, not yet renamed into place. */
  paths: ImagePaths;
  /** The host's bundle directory, whose runtime.cjs is the one staged in the rootfs. */
  bundleDir: string;
  accel: "kvm" | "tcg";
  /** Where the blob is written when it was made. */
  out: string;
  /** Same as a cell's: the guest's memory is no part of V8's tag, but the build must fit where cells do. */
  memoryMiB?: number;
  timeoutMs?: number;
}

export interface MicrovmSnapshotResult {
  ok: boolean;
  detail: string;
  ms: number;
  /** What the boot found the cell user's tools can run in, when it got that far (see TOOL_SANDBOX_FILE). */
  toolSandbox?: "bwrap" | "none";
}

/**
 * Boots the image to make its startup snapshot, and asks the same boot whether tools can nest a sandbox there.
 * Never throws: what cannot be made or found out costs speed only (cells then load, and probe, at each start).
 */
export async function makeMicrovmSnapshot(options: MicrovmSnapshotOptions): Promise<MicrovmSnapshotResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 300_000;
  let toolSandbox: "bwrap" | "none" | undefined;
  const done = (ok: boolean, detail: string): MicrovmSnapshotResult => ({
    ok,
    detail,
    ms: Date.now() - started,
    ...(toolSandbox ? { toolSandbox } : {}),
  });
  const work = await mkdtemp(join(options.paths.cache, "snapshot-"));
  try {
    const seed = join(work, "seed");
    await mkdir(seed);
    await writeSnapshotEntry(
      options.bundleDir,
      join(PACKAGE_IN_CELL, GUEST_BUNDLE_DIR),
      join(seed, SNAPSHOT_BUILD_FILES.entry),
    );
    const disk = join(work, "out.ext4");
    const mkfs = await runProgram(
      "mkfs.ext4",
      ["-q", "-F", "-L", "irc-build", "-d", seed, disk, "128M"],
      60_000,
    );
    if (!mkfs.ok) return done(false, `mkfs.ext4 failed: ${firstLine(mkfs.stderr)}`);
    const boot = await runProgram(
      QEMU_BINARY,
      microvmArgs({
        paths: options.paths,
        accel: options.accel,
        memoryMiB: options.memoryMiB ?? 256,
        cpus: 1,
        userId: "image-build",
        handler: "agent",
        brainFile: disk,
        build: "snapshot",
      }),
      timeoutMs,
    );
    if (boot.error) return done(false, `${QEMU_BINARY} could not run: ${boot.error}`);
    if (boot.timedOut) return done(false, `the snapshot VM did not power off within ${timeoutMs} ms`);
    const sandbox = (await debugfs(disk, `cat /${SNAPSHOT_BUILD_FILES.toolSandbox}`)).stdout.trim();
    if (sandbox === "bwrap" || sandbox === "none") toolSandbox = sandbox;
    const status = await debugfs(disk, `cat /${SNAPSHOT_BUILD_FILES.status}`);
    if (status.stdout.trim() !== "made") {
      const log = await debugfs(disk, `cat /${SNAPSHOT_BUILD_FILES.log}`);
      const why = log.stdout.trim().split("\n").slice(-3).join(" ") || firstLine(boot.stdout) || "no output";
      return done(false, `node did not make it in the VM: ${why}`);
    }
    await rm(options.out, { force: true });
    const dump = await debugfs(disk, `dump /${SNAPSHOT_BUILD_FILES.blob} ${options.out}`);
    // debugfs says what it could not do on stderr and still exits 0: the file tells.
    const size = (await stat(options.out).catch(() => undefined))?.size ?? 0;
    if (!dump.ok || size === 0)
      return done(false, `debugfs could not read the snapshot: ${firstLine(dump.stderr)}`);
    return done(true, `made under ${options.accel}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function debugfs(disk: string, request: string) {
  return runProgram("debugfs", ["-R", request, disk], 60_000);
}
