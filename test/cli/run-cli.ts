import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { cliEntry } from "../support/cli-entry.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ironclaw …` as a real child process (the built CLI when it is current, see cliEntry). */
export function runIronclaw(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  return new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, IRONCLAW_LOG: "silent", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

export interface InProcessOptions {
  stdin?: string;
  /** Added to this process's environment for this call only, through the CLI's own `env` (never process.env). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Also set `env` on process.env for the length of the call, restored after: for a command that still reads
   * process.env somewhere below the CLI (doctor's image directory). One such call at a time; a second one
   * while the first runs is refused, since restoring would then undo the other's values.
   */
  processEnv?: boolean;
}

let processEnvHeld = false;

/** Sets these variables on process.env and returns what puts the previous values back. */
function swapProcessEnv(env: NodeJS.ProcessEnv): () => void {
  if (processEnvHeld)
    throw new Error("runIronclawInProcess: processEnv: only one such call may run at a time");
  processEnvHeld = true;
  const previous = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return () => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    processEnvHeld = false;
  };
}

/**
 * Runs the same `runCli` the binary runs, in this process, with captured streams: used where a test checks a
 * command's logic and a child process per call would only measure Node's start-up. The CLI reads its
 * environment and working directory from what it is given, so nothing here touches process.env or process.cwd,
 * and calls (and test files sharing a worker) cannot leak into each other.
 */
export async function runIronclawInProcess(
  args: string[],
  stdinOrOptions: string | InProcessOptions = "",
): Promise<CliResult> {
  const options = typeof stdinOrOptions === "string" ? { stdin: stdinOrOptions } : stdinOrOptions;
  const { runCli } = await import("../../src/cli/main.js");
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const env = { ...process.env, IRONCLAW_LOG: "silent", ...options.env };
  const restore = options.processEnv ? swapProcessEnv(options.env ?? {}) : () => {};
  try {
    const code = await runCli(args, {
      stdin: Readable.from([options.stdin ?? ""]),
      stdout: sink((s) => {
        stdout += s;
      }),
      stderr: sink((s) => {
        stderr += s;
      }),
      env,
      cwd: options.cwd ?? REPO_ROOT,
    });
    return { code, stdout, stderr };
  } finally {
    restore();
  }
}
