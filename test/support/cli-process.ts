import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cliEntry } from "./cli-entry.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A long-running `ironclaw …` child (a worker, a waiting run) whose output a test watches and which it ends. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** The exit code, or the signal's name when a signal ended it. */
  readonly exited: Promise<number | string>;
  /** Resolves once the output matches, rejects when the process exits first or `timeoutMs` passes. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

/** Runs `ironclaw …` as its own process, as the binary would (the built CLI when it is current, see cliEntry). */
export function spawnIronclaw(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn(process.execPath, [...cliEntry(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, IRONCLAW_LOG: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`ironclaw ${args.join(" ")} did not start`);
  let out = "";
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve(code ?? signal ?? "unknown");
      for (const listener of listeners) listener();
    });
  });
  return {
    child,
    pid: child.pid,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`not seen within ${timeoutMs} ms: ${pattern}`)),
          timeoutMs,
        );
        const finish = (error?: Error, match?: RegExpExecArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else
            reject(new Error(`${error?.message}\n--- ironclaw ${args[0]} output ---\n${out.slice(-4000)}`));
        };
        const check = () => {
          const match = pattern.exec(out);
          if (match) finish(undefined, match);
          else if (child.exitCode !== null || child.signalCode !== null)
            finish(new Error(`ironclaw ${args[0]} exited before ${pattern}`));
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** SIGKILLs every process still running and waits for each to be gone. */
export async function killAll(processes: Iterable<CliProcess>): Promise<void> {
  await Promise.all(
    [...processes].map(async (p) => {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
      await p.exited;
    }),
  );
}
