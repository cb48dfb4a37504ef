import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createLogger, type Logger } from "../../core/index.js";
import { ensureBrainDir } from "../brain-dir.js";
import { assertUserId, type CellBackend, type CellHandle, type CellStartSpec } from "../cell.js";
import { duplexOf, launchChildCell } from "../child-cell.js";
import { defaultRuntime, type GuestRuntime } from "../guest-runtime.js";
import { ensureSkillsDir } from "../skills-dir.js";

export const PROCESS_WARNING =
  "the process cell backend does not isolate: the agent runs as a plain host process with this user's rights";

export interface ProcessBackendOptions {
  runtime?: GuestRuntime;
  logger?: Logger;
  /** Called on every start with the warning, besides the log line (the CLI prints it). */
  onWarning?: (warning: string) => void;
}

/** No isolation at all: for development hosts that have neither KVM nor bubblewrap, chosen explicitly. */
export function createProcessBackend(options: ProcessBackendOptions = {}): CellBackend {
  const runtime = options.runtime ?? defaultRuntime();
  const logger = options.logger ?? createLogger("cells");
  return {
    name: "process",
    isolated: false,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      logger.warn({ user: spec.userId }, PROCESS_WARNING);
      options.onWarning?.(PROCESS_WARNING);
      await mkdir(spec.userDir, { recursive: true });
      const brain = await ensureBrainDir(spec.userDir, spec.brainSeed);
      // No mount here: the runtime reads the host folder itself (its file tool's policy keeps it read-only).
      const skills = await ensureSkillsDir(spec.userDir);
      const child = spawn(
        process.execPath,
        [
          ...runtime.nodeArgs(runtime.packageRoot),
          ...["--channel", "stdio", "--brain", brain.dir, "--skills", skills, "--user", spec.userId],
          ...["--handler", spec.handler ?? "agent"],
          ...(spec.maxFrameBytes ? ["--max-frame-bytes", String(spec.maxFrameBytes)] : []),
        ],
        {
          cwd: brain.dir,
          stdio: ["pipe", "pipe", "pipe"],
          env: { ...process.env, ...spec.env, IRONCLAW_LOG: process.env.IRONCLAW_LOG ?? "warn" },
        },
      );
      return launchChildCell({
        backend: "process",
        isolated: false,
        spec,
        child,
        channel: duplexOf(child),
      });
    },
  };
}
