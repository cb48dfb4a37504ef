import { spawn } from "node:child_process";

export interface GroupRun {
  pid: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  output: string;
  /** Bytes produced beyond the cap and dropped. */
  droppedBytes: number;
}

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** How long SIGTERM gets before SIGKILL. */
  graceMs?: number;
}

/**
 * Runs `bash -c command` as the leader of its own process group, with stdout and stderr interleaved into one
 * capped buffer. On timeout or abort the whole group gets SIGTERM, then SIGKILL after a grace period; once the
 * leader exits, whatever it left running in the group is killed too, so a tool call never outlives its result.
 */
export function runInProcessGroup(command: string, options: GroupRunOptions): Promise<GroupRun> {
  const graceMs = options.graceMs ?? 500;
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let droppedBytes = 0;
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const take = (data: Buffer) => {
      const room = options.maxOutputBytes - kept;
      if (room > 0) {
        const part = data.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      droppedBytes += Math.max(0, data.length - Math.max(room, 0));
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);

    const stop = (why: "timeout" | "abort") => {
      if (exit || settled) return;
      if (why === "timeout") timedOut = true;
      else aborted = true;
      signalGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), graceMs);
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("abort");
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });

    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(pipeTimer);
      options.signal.removeEventListener("abort", onAbort);
      // SIGKILL is delivered asynchronously: wait until the group is really empty, so a result means "done".
      signalGroup(child.pid, "SIGKILL");
      await groupGone(child.pid, 2_000);
      resolve({
        pid: child.pid,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        output: Buffer.concat(chunks).toString("utf8"),
        droppedBytes,
      });
    };
    let pipeTimer: NodeJS.Timeout | undefined;
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Background jobs of the command keep the group (and our pipes) alive; a bounded tool ends them.
      signalGroup(child.pid, "SIGKILL");
      // A process that left the group with setsid can still hold the pipes open: do not wait for it forever.
      pipeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        void finish();
      }, 1_000);
    });
    child.on("close", () => void finish());
    child.on("error", (error) => {
      chunks.push(Buffer.from(`cannot start bash: ${error.message}`));
      exit = { code: null, signal: null };
      void finish();
    });
  });
}

async function groupGone(pid: number | undefined, maxMs: number): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    try {
      process.kill(-pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
