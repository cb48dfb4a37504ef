import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ironclaw …` from the TypeScript sources as a real child process. */
export function runIronclaw(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  return new Promise<CliResult>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", `${REPO_ROOT}src/cli/main.ts`, ...args], {
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

/**
 * Runs the same `runCli` the binary runs, in this process, with captured streams: used where a test drives the
 * CLI hundreds of times and a child process per call would only measure Node's start-up.
 */
export async function runIronclawInProcess(args: string[], stdin = ""): Promise<CliResult> {
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
  const code = await runCli(args, {
    stdin: Readable.from([stdin]),
    stdout: sink((s) => {
      stdout += s;
    }),
    stderr: sink((s) => {
      stderr += s;
    }),
    env: { ...process.env, IRONCLAW_LOG: "silent" },
    cwd: REPO_ROOT,
  });
  return { code, stdout, stderr };
}
