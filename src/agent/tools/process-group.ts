import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { killMarkedProcesses, TOOL_RUN_ENV } from "./tool-run-marker.js";
import { sandboxedCommand, type ToolSandbox, toolSandboxFromEnv } from "./tool-sandbox.js";

export interface GroupRun {
  pid: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** stdout and stderr interleaved; stdout alone with `separateStderr`. */
  output: string;
  /** stderr, only with `separateStderr`. */
  stderr?: string;
  /** Bytes produced beyond the cap and dropped. */
  droppedBytes: number;
  /** Processes the command left behind outside its group (setsid, nohup) that were found and killed. */
  strays: number;
}

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Cap of the output (of each stream with `separateStderr`). */
  maxOutputBytes: number;
  signal: AbortSignal;
  /** How long SIGTERM gets before SIGKILL. */
  graceMs?: number;
  /** Keep stderr apart from stdout (the shell test handler reports them separately). */
  separateStderr?: boolean;
  /** Where tool processes are contained; default what the cell asked for in the environment. */
  sandbox?: ToolSandbox | null;
}

/**
 * Runs `bash -c command` as the leader of its own process group, with its output captured and capped. On
 * timeout or abort the whole group gets SIGTERM, then SIGKILL after a grace period; once the leader exits,
 * whatever it left running is killed too, so a tool call never outlives its result. In a cell the command
 * runs in the tool sandbox (see sandboxedCommand), whose pid namespace takes every process with it; outside
 * one, processes that left the group (setsid) are found by the marker every one of them inherits.
 */
export function runInProcessGroup(command: string, options: GroupRunOptions): Promise<GroupRun> {
  const graceMs = options.graceMs ?? 500;
  const marker = randomBytes(12).toString("hex");
  let sandbox: ToolSandbox | undefined;
  let spawnArgs: { file: string; args: string[] };
  try {
    sandbox = options.sandbox === undefined ? toolSandboxFromEnv() : (options.sandbox ?? undefined);
    const argv = ["bash", "-c", command];
    spawnArgs = sandbox
      ? sandboxedCommand(sandbox, argv, options.cwd)
      : { file: "bash", args: argv.slice(1) };
  } catch (error) {
    return Promise.resolve(notStarted(`the tool sandbox is not usable: ${(error as Error).message}`));
  }
  return new Promise((resolve) => {
    // Tools are the first the kernel's OOM killer takes, before the runtime that answers for the cell: a tool
    // that fills the cell's memory must not take the channel down with it. Set before exec, so nothing the
    // tool forks escapes it; a process may always raise its own score.
    const child = spawn("/bin/sh", ["-c", OOM_FIRST, "tool", spawnArgs.file, ...spawnArgs.args], {
      cwd: options.cwd,
      env: { ...options.env, [TOOL_RUN_ENV]: marker },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = capture(options.maxOutputBytes);
    const err = options.separateStderr ? capture(options.maxOutputBytes) : out;
    let timedOut = false;
    let aborted = false;
    let strays = 0;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let pipeTimer: NodeJS.Timeout | undefined;
    child.stdout.on("data", out.take);
    child.stderr.on("data", err.take);

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

    // Background jobs keep the group (and our pipes) alive; processes that left the group with setsid do too.
    const endStragglers = async () => {
      signalGroup(child.pid, "SIGKILL");
      if (sandbox) return;
      // Read after the await: this runs at the exit and again at the end, and `strays += await …` would add
      // to the value read before the other run's kills were counted, losing them.
      const killed = await killMarkedProcesses(marker);
      strays += killed;
    };
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(pipeTimer);
      options.signal.removeEventListener("abort", onAbort);
      // SIGKILL is delivered asynchronously: wait until the group is really empty, so a result means "done".
      await endStragglers();
      await groupGone(child.pid, 2_000);
      resolve({
        pid: child.pid,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        output: out.text(),
        ...(options.separateStderr ? { stderr: err.text() } : {}),
        droppedBytes: out.dropped() + (err === out ? 0 : err.dropped()),
        strays,
      });
    };
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      void endStragglers();
      // A process that escaped every kill can still hold the pipes open: do not wait for it forever.
      pipeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        void finish();
      }, 1_000);
    });
    child.on("close", () => void finish());
    child.on("error", (error) => {
      const why = sandbox ? "cannot start the tool sandbox (bwrap)" : "cannot start bash";
      err.take(Buffer.from(`${why}: ${error.message}`));
      exit = { code: null, signal: null };
      void finish();
    });
  });
}

const OOM_FIRST = 'echo 500 > /proc/self/oom_score_adj 2>/dev/null; exec "$@"';

function notStarted(why: string): GroupRun {
  return {
    pid: undefined,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    output: why,
    droppedBytes: 0,
    strays: 0,
  };
}

/** A capped byte buffer for one output stream. */
function capture(cap: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    take: (data: Buffer) => {
      const room = cap - kept;
      if (room > 0) {
        const part = data.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      dropped += Math.max(0, data.length - Math.max(room, 0));
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    dropped: () => dropped,
  };
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
