import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
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
import { readImageStatus } from "../image/image-status.js";
import { ensurePrivateDir } from "../private-dir.js";
import { ensureSkillsDisk } from "../skills-disk.js";
import { listenOnce } from "./listen-once.js";
import { type MicrovmCommand, microvmArgs } from "./microvm-command.js";
import { ControlLine, dropTakenVm, saveVm, takeSavedVm } from "./microvm-save.js";

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
  /**
   * Idle cells are saved to disk and resumed on their user's next message (default), where the image has the
   * resume helper; false stops them instead.
   */
  suspend?: boolean;
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
    suspends: options.suspend !== false,
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
      await ensurePrivateDir(runDir);
      const brain = await ensureBrainDisk(spec.userDir, options.brainDiskMiB ?? 256, spec.brainSeed);
      // One VM per brain disk: two writers would corrupt the ext4 file system.
      const lockFile = join(spec.userDir, "brain.lock");
      await takeBrainLock(lockFile, spec.userId);
      // Made under the brain's lock: one start at a time writes the user's disks. Its name carries the skills'
      // digest, and so does the resume key below: a VM saved with other skills boots afresh.
      const skillsDisk = await ensureSkillsDisk(spec.userDir).catch(async (error: unknown) => {
        await releaseBrainLock(lockFile);
        throw error;
      });
      const config = {
        paths,
        accel: mode,
        memoryMiB: options.memoryMiB ?? 256,
        cpus: options.cpus ?? 1,
        userId: spec.userId,
        handler: spec.handler ?? "agent",
        ...(spec.maxFrameBytes ? { maxFrameBytes: spec.maxFrameBytes } : {}),
        brainFile: brain.file,
        ...(skillsDisk ? { skillsFile: skillsDisk.file } : {}),
        ...(consoleDir ? { consoleDir } : {}),
      };
      // The guest's memory depends on the image and on everything its kernel was booted with.
      const manifest = (await readImageStatus(paths)).manifest;
      const resumable = options.suspend !== false && manifest?.resume === "ready";
      const key = JSON.stringify({
        image: manifest?.built_at,
        ...config,
        paths: undefined,
        consoleDir: undefined,
      });
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        await releaseBrainLock(lockFile);
      };
      try {
        const saved = resumable ? await takeSavedVm(spec.userDir, key, brain.file) : undefined;
        if (saved?.file) {
          const resumed = await launchVm(spec, config, mode, key, resumable, release, saved).catch(
            (error: Error) => {
              logger.warn(
                { user: spec.userId, err: error.message },
                "the saved cell did not resume; booting it",
              );
              return undefined;
            },
          );
          await dropTakenVm(spec.userDir);
          if (resumed) return resumed;
        }
        return await launchVm(spec, config, mode, key, resumable, release);
      } catch (error) {
        await release();
        throw error;
      }
    },
  };

  /** Boots (or, given a saved VM, restores) one VM and hands it to the shared child-cell lifecycle. */
  async function launchVm(
    spec: CellStartSpec,
    config: Omit<MicrovmCommand, "socketPath" | "controlSocketPath" | "monitorPath" | "incomingFile">,
    mode: "kvm" | "tcg",
    key: string,
    resumable: boolean,
    release: () => Promise<void>,
    saved?: { file: string; nextMsgId: number },
  ): Promise<CellHandle> {
    const incomingFile = saved?.file;
    const base = join(runDir, `${spec.userId.slice(0, 32)}-${randomBytes(4).toString("hex")}`);
    const socketPath = `${base}.sock`;
    const controlPath = `${base}.ctl`;
    const monitorPath = `${base}.mon`;
    const saveSocketPath = `${base}.save`;
    const channel = await listenOnce(socketPath);
    const controlSocket = await listenOnce(controlPath);
    const child = spawn(
      QEMU_BINARY,
      microvmArgs({
        ...config,
        socketPath,
        controlSocketPath: controlPath,
        monitorPath,
        ...(incomingFile ? { incomingFile } : {}),
      }),
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const removeSockets = async () => {
      channel.close();
      controlSocket.close();
      await Promise.all(
        [socketPath, controlPath, monitorPath, saveSocketPath].map((p) => rm(p, { force: true })),
      );
    };
    const control = controlSocket.connection.then((socket) => new ControlLine(socket));
    if (incomingFile) {
      // The restored guest runs on as soon as QEMU has read it; its first act is to take the clock and entropy.
      const exited = new Promise<never>((_, reject) =>
        child.once("exit", (code, signal) =>
          reject(new Error(`QEMU exited (${code ?? signal}) while restoring`)),
        ),
      );
      try {
        const answer = await Promise.race([
          control.then((c) => c.ask(c.resumeLine(), mode === "tcg" ? 30_000 : 10_000)),
          exited,
        ]);
        if (answer !== "resumed") throw new Error(`the guest answered ${answer} to resume`);
      } catch (error) {
        // The boot that follows opens the same brain disk, which QEMU locks: this one must be gone first.
        const gone = new Promise((resolve) => child.once("exit", resolve));
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL");
          await gone;
        }
        await removeSockets();
        throw error;
      }
    }
    return launchChildCell({
      backend: "microvm",
      isolated: true,
      spec: { ...spec, startTimeoutMs: spec.startTimeoutMs ?? (mode === "tcg" ? 90_000 : 30_000) },
      child,
      channel: channel.connection,
      ...(saved ? { resumed: { nextMsgId: saved.nextMsgId } } : {}),
      consoleOnStdout: true,
      stopTimeoutMs: 20_000,
      // Emulated, the guest's heartbeats stall whenever the host's cores are busy: allow 30 s, not 15.
      ...(mode === "tcg" ? { missedHeartbeats: 6 } : {}),
      ...(resumable
        ? {
            suspend: async (nextMsgId: () => number) => {
              const result = await saveVm({
                control: await control,
                monitorPath,
                saveSocketPath,
                userDir: spec.userDir,
                key,
                brainFile: config.brainFile,
                memoryBytes: config.memoryMiB * 1024 ** 2,
                nextMsgId,
              });
              if (!result.saved) logger.warn({ user: spec.userId, why: result.why }, "cell not suspended");
              return result.saved;
            },
          }
        : {}),
      cleanup: async () => {
        await removeSockets();
        await release();
      },
    });
  }
}
