import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type Logger } from "../../core/index.js";
import { chooseMicrovmAccel } from "../boot-probe.js";
import { ensureBrainDisk } from "../brain-disk.js";
import { releaseBrainLock, takeBrainLock } from "../brain-lock.js";
import {
  assertUserId,
  type CellBackend,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "../cell.js";
import { launchChildCell } from "../child-cell.js";
import { QEMU_BINARY } from "../host-probe.js";
import { type ImagePaths, imagePaths } from "../image/image-paths.js";
import { microvmArgs } from "./microvm-command.js";

export interface MicrovmBackendOptions {
  paths?: ImagePaths;
  /** `auto` uses KVM when a guest really runs under it, else TCG if allowed. */
  accel?: "auto" | "kvm" | "tcg";
  /** TCG (software emulation) is slow; `auto` only falls back to it when this is set. */
  allowTcg?: boolean;
  memoryMiB?: number;
  cpus?: number;
  /** Size of a new user's brain.ext4: the user's disk quota. */
  brainDiskMiB?: number;
  /** Write each guest's full kernel console to <dir>/<user>.console.log instead of keeping a quiet tail. */
  consoleDir?: string;
  /** Where the channel sockets live; unix socket paths are limited to 107 bytes. */
  runDir?: string;
  logger?: Logger;
  onWarning?: (warning: string) => void;
}

export const TCG_WARNING =
  "KVM is not usable here: the microVM runs under TCG software emulation (boots take seconds)";

/** QEMU `-M microvm`: a kernel of its own, a read-only rootfs, the brain as a disk, virtio-serial channel. */
export function createMicrovmBackend(
  options: MicrovmBackendOptions = {},
): CellBackend & { accel(): Promise<"kvm" | "tcg"> } {
  const paths = options.paths ?? imagePaths();
  const logger = options.logger ?? createLogger("cells");
  const runDir = options.runDir ?? join(tmpdir(), `ironclaw-cells-${process.getuid?.() ?? 0}`);
  const consoleDir = options.consoleDir ?? process.env.IRONCLAW_CELL_CONSOLE_DIR;
  let chosen: Promise<"kvm" | "tcg"> | undefined;
  const accel = () => {
    chosen ??= chooseMicrovmAccel(options.accel ?? "auto", options.allowTcg === true, paths);
    return chosen;
  };
  return {
    name: "microvm",
    isolated: true,
    accel,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      for (const part of [paths.kernel, paths.initramfs, paths.rootfs]) {
        if (!existsSync(part))
          throw new CellStartError(`microVM image part ${part} is missing: run ironclaw image build`);
      }
      if (spec.allowNetwork)
        throw new CellStartError("network egress for microVM cells is not implemented yet");
      const mode = await accel();
      if (mode === "tcg") {
        logger.warn({ user: spec.userId }, TCG_WARNING);
        options.onWarning?.(TCG_WARNING);
      }
      // users/<u> holds the whole brain as a disk image: the warden's alone.
      await mkdir(spec.userDir, { recursive: true, mode: 0o700 });
      await mkdir(runDir, { recursive: true, mode: 0o700 });
      const brain = await ensureBrainDisk(spec.userDir, options.brainDiskMiB ?? 256, spec.brainSeed);
      // One VM per brain disk: two writers would corrupt the ext4 file system.
      const lockFile = join(spec.userDir, "brain.lock");
      await takeBrainLock(lockFile, spec.userId);
      const socketPath = join(runDir, `${spec.userId.slice(0, 32)}-${randomBytes(4).toString("hex")}.sock`);
      const server = createServer();
      let connection: Socket | undefined;
      const channel = new Promise<Socket>((resolve) => {
        server.once("connection", (socket) => {
          connection = socket;
          server.close();
          resolve(socket);
        });
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, resolve);
      });
      const child = spawn(
        QEMU_BINARY,
        microvmArgs({
          paths,
          accel: mode,
          memoryMiB: options.memoryMiB ?? 256,
          cpus: options.cpus ?? 1,
          userId: spec.userId,
          handler: spec.handler ?? "agent",
          ...(spec.maxFrameBytes ? { maxFrameBytes: spec.maxFrameBytes } : {}),
          brainFile: brain.file,
          socketPath,
          ...(consoleDir ? { consoleDir } : {}),
        }),
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      return launchChildCell({
        backend: "microvm",
        isolated: true,
        spec: { ...spec, startTimeoutMs: spec.startTimeoutMs ?? (mode === "tcg" ? 90_000 : 30_000) },
        child,
        channel,
        consoleOnStdout: true,
        stopTimeoutMs: 20_000,
        cleanup: async () => {
          connection?.destroy();
          server.close();
          await rm(socketPath, { force: true });
          await releaseBrainLock(lockFile);
        },
      });
    },
  };
}
