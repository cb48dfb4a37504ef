import { type ChildProcess, spawn } from "node:child_process";

/** What running a program printed, or that it could not be run. */
export interface RunOutcome {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  error?: string;
  timedOut: boolean;
}

/**
 * Runs a program without a shell, bounded in time; never throws. Spawned from this process, which is right for
 * the CLI and image builds; a serving warden's hot paths use runProgramViaHelper (below says why).
 */
export function runProgram(cmd: string, args: string[], timeoutMs = 10_000): Promise<RunOutcome> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, code: null, stdout, stderr, error: error.message, timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0 && !timedOut, code, stdout, stderr, timedOut });
    });
  });
}

/*
 * Why the warden's hot paths start programs through a helper. spawn() forks the calling process, and the
 * fork copies its page tables: its cost grows with the caller's memory, and the event loop waits for it
 * (measured: 0.9 ms from a 44 MB node, 11 ms at 246 MB, 32 ms at 651 MB; a serving warden holds about
 * 115 MB, 325 MB after the first start that converts the word table). A blank cell's hand-out and a new
 * brain's spare copy each start a program while a user waits, so they ask a small node process, started
 * once, to start it instead. The helper is the warden's own child, root like it, reachable only through its
 * IPC channel, and it exits when the warden does.
 */
const HELPER = `"use strict";
const { spawn } = require("node:child_process");
process.on("disconnect", () => process.exit(0));
process.on("message", (m) => {
  let stdout = "", stderr = "", timedOut = false, sent = false;
  const child = spawn(m.file, m.args, { stdio: ["ignore", "pipe", "pipe"] });
  const timer = setTimeout(() => { timedOut = true; child.kill("SIGKILL"); }, m.timeoutMs);
  child.stdout.on("data", (d) => { stdout += d; });
  child.stderr.on("data", (d) => { stderr += d; });
  const done = (r) => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    process.send({ id: m.id, stdout, stderr, timedOut, ...r });
  };
  child.on("error", (e) => done({ ok: false, code: null, error: e.message }));
  child.on("close", (code) => done({ ok: code === 0 && !timedOut, code }));
});
`;

interface Reply extends RunOutcome {
  id: number;
}

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
        resume({ ok: false, code: null, stdout: "", stderr: "", error: "helper exited", timedOut: false });
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

/** Runs a program without a shell, bounded in time, started by the helper; never throws. */
export async function runProgramViaHelper(
  file: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<RunOutcome> {
  const runner = startHelper();
  if (runner?.connected) {
    const id = nextId++;
    const outcome = await new Promise<RunOutcome>((resolve) => {
      waiting.set(id, resolve);
      runner.channel?.ref();
      runner.send({ id, file, args, timeoutMs }, (error) => {
        if (error) {
          waiting.delete(id);
          resolve({ ok: false, code: null, stdout: "", stderr: "", error: "helper exited", timedOut: false });
        }
      });
    }).finally(() => {
      if (waiting.size === 0) runner.channel?.unref();
    });
    if (outcome.error !== "helper exited") return outcome;
  }
  return runProgram(file, args, timeoutMs);
}

/** Starts the helper ahead of its first use (a blank pool's boot), so no hand-out waits for node to start. */
export function prepareProgramRunner(): void {
  startHelper();
}
