import { type ChildProcess, spawn } from "node:child_process";

/** What running a program printed, or that it could not be run. */
export interface RunOutcome {
  ok: boolean;
  code: number | null;
  /** The signal that ended it, when one did (its time limit's SIGKILL, or another). */
  signal?: string | null;
  stdout: string;
  stderr: string;
  error?: string;
  timedOut: boolean;
}

/** Where and how a program runs, beyond its name and arguments. */
export interface ProgramOptions {
  /** Default 10 s: a program still running then is killed (SIGKILL) and reported as timed out. */
  timeoutMs?: number;
  /** Its working directory (default: the caller's). */
  cwd?: string;
  /** Its whole environment (default: the caller's). */
  env?: Record<string, string>;
  /** Bytes for its stdin, then end of input; without this its stdin is /dev/null. */
  input?: string;
  /**
   * Through the helper: when the helper exits after it was asked (so the program may have run), report that
   * instead of running the program again from this process. For programs whose second run would differ (a
   * commit, a ref moved); without it such a run is repeated, which suits a copy or a mount.
   */
  once?: boolean;
}

/** Options as given, or the time limit alone (the older, shorter form). */
const optionsOf = (given: number | ProgramOptions | undefined): ProgramOptions =>
  typeof given === "number" ? { timeoutMs: given } : (given ?? {});

/**
 * Runs a program without a shell, bounded in time; never throws. Spawned from this process, which is right for
 * the CLI and image builds; a serving warden's hot paths use runProgramViaHelper (below says why).
 */
export function runProgram(
  cmd: string,
  args: readonly string[],
  given?: number | ProgramOptions,
): Promise<RunOutcome> {
  const options = optionsOf(given);
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    let settled = false;
    const settle = (outcome: Omit<RunOutcome, "stdout" | "stderr" | "timedOut">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        ...outcome,
        // Decoded once whole: a character split across two reads stays one character.
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut,
      });
    };
    let child: ChildProcess;
    try {
      child = spawn(cmd, args, {
        cwd: options.cwd,
        env: options.env,
        stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ ok: false, code: null, stdout: "", stderr: "", error: String(error), timedOut: false });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 10_000);
    child.stdout?.on("data", (d: Buffer) => out.push(d));
    child.stderr?.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) => settle({ ok: false, code: null, error: error.message }));
    child.on("close", (code, signal) => settle({ ok: code === 0 && !timedOut, code, signal }));
    if (options.input !== undefined) {
      // A program that exits before reading all of its input closes the pipe; its exit says what happened.
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.input);
    }
  });
}

/*
 * Why the warden's hot paths start programs through a helper. spawn() forks the calling process, and the
 * fork copies its page tables: its cost grows with the caller's memory, and the event loop waits for it
 * (measured: 0.9 ms from a 44 MB node, 11 ms at 246 MB, 32 ms at 651 MB; a serving warden holds about
 * 115 MB, 325 MB after the first start that converts the word table). A blank cell's hand-out, a new brain's
 * spare copy and every git command an order runs start a program while someone waits, so they ask a small
 * node process, started once, to start it instead. The helper is the warden's own child, the same user as it,
 * reachable only through its IPC channel, and it exits when the warden does. It runs what it is asked with
 * the environment it is given, so a caller that hands a program an environment of its own (git's) gets
 * exactly that.
 */
const HELPER = `"use strict";
const { spawn } = require("node:child_process");
process.on("disconnect", () => process.exit(0));
process.on("message", (m) => {
  const out = [], err = [];
  let timedOut = false, sent = false, timer;
  const done = (r) => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    const stdout = Buffer.concat(out).toString("utf8"), stderr = Buffer.concat(err).toString("utf8");
    process.send({ id: m.id, stdout, stderr, timedOut, ...r });
  };
  let child;
  try {
    child = spawn(m.file, m.args, {
      cwd: m.cwd, env: m.env, stdio: [m.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
  } catch (e) {
    done({ ok: false, code: null, error: String(e) });
    return;
  }
  timer = setTimeout(() => { timedOut = true; child.kill("SIGKILL"); }, m.timeoutMs);
  child.stdout.on("data", (d) => out.push(d));
  child.stderr.on("data", (d) => err.push(d));
  child.on("error", (e) => done({ ok: false, code: null, error: e.message }));
  child.on("close", (code, signal) => done({ ok: code === 0 && !timedOut, code, signal }));
  if (m.input !== undefined) {
    child.stdin.on("error", () => {});
    child.stdin.end(m.input);
  }
});
`;

interface Reply extends RunOutcome {
  id: number;
}

const HELPER_GONE = "helper exited";
const NOT_ASKED = "helper not asked";
let helper: ChildProcess | undefined;
let nextId = 0;
const waiting = new Map<number, (outcome: RunOutcome) => void>();

function startHelper(): ChildProcess | undefined {
  if (helper?.connected) return helper;
  try {
    const child = spawn(process.execPath, ["-e", HELPER], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    child.on("message", (reply: Reply) => {
      const { id, ...outcome } = reply;
      waiting.get(id)?.(outcome);
      waiting.delete(id);
    });
    child.on("error", () => undefined);
    // A helper that is gone answers nothing more: whatever waited on it runs the slow way instead.
    child.on("exit", () => {
      if (helper === child) helper = undefined;
      for (const [id, resume] of waiting) {
        waiting.delete(id);
        resume({ ok: false, code: null, stdout: "", stderr: "", error: HELPER_GONE, timedOut: false });
      }
    });
    // Neither keeps the warden (or a test) running; the helper leaves when the warden's channel closes.
    child.unref();
    child.channel?.unref();
    helper = child;
    return child;
  } catch {
    return undefined;
  }
}

/**
 * Runs a program without a shell, bounded in time, started by the helper; never throws. When the helper cannot
 * be asked, the program runs from this process; when it exits while the program runs, the program runs again
 * from this process unless `once` says it must not.
 */
export async function runProgramViaHelper(
  file: string,
  args: readonly string[],
  given?: number | ProgramOptions,
): Promise<RunOutcome> {
  const options = optionsOf(given);
  const runner = startHelper();
  if (runner?.connected) {
    const id = nextId++;
    const outcome = await new Promise<RunOutcome>((resolve) => {
      waiting.set(id, resolve);
      runner.channel?.ref();
      // IPC's JSON leaves out the options not given.
      const { cwd, env, input } = options;
      const request = { id, file, args, timeoutMs: options.timeoutMs ?? 10_000, cwd, env, input };
      runner.send(request, (error) => {
        if (error) {
          waiting.delete(id);
          resolve({ ok: false, code: null, stdout: "", stderr: "", error: NOT_ASKED, timedOut: false });
        }
      });
    }).finally(() => {
      if (waiting.size === 0) runner.channel?.unref();
    });
    if (outcome.error === HELPER_GONE && options.once)
      return {
        ...outcome,
        error: `the program runner exited while ${file} ran: whether it ran is not known`,
      };
    if (outcome.error !== HELPER_GONE && outcome.error !== NOT_ASKED) return outcome;
  }
  return runProgram(file, args, options);
}

/** Starts the helper ahead of its first use (a blank pool's boot), so no hand-out waits for node to start. */
export function prepareProgramRunner(): void {
  startHelper();
}
