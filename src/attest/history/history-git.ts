import { spawn } from "node:child_process";
import { IronclawError } from "../../core/index.js";

/**
 * The git a brain's history runs: the `git` binary with a fixed argv and no shell, no system or global config,
 * hooks pointed at nothing, no fsmonitor, filters or pager, and an environment of its own (nothing of the
 * warden's keys or HOME reaches it). The repository lives outside every cell, and its git directory apart from
 * the tree it mirrors, so no file name a brain holds can land in it.
 */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.attributesFile=/dev/null",
  "core.pager=cat",
  "core.quotePath=false",
  "credential.helper=",
  "protocol.allow=never",
  "init.defaultBranch=main",
  "gc.auto=0",
  "maintenance.auto=false",
];

const IDENTITY = { name: "IronClaw", email: "ironclaw@localhost" };

export class HistoryGitError extends IronclawError {
  override readonly name = "HistoryGitError";
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      "git_failed",
      `git ${args.join(" ")} failed (exit ${exitCode}): ${stderr.trim().split("\n").slice(-3).join(" ")}`,
    );
  }
}

export interface HistoryRepo {
  /** The git directory (objects, refs). */
  gitDir: string;
  /** The mirror of the brain's markdown tree that commits are made from. */
  workTree: string;
}

export interface HistoryGitOptions {
  input?: Buffer | string;
  /** Author and committer date of a commit (RFC 3339), so a node's time and its commit's agree. */
  date?: string;
}

/** Runs `git <args>` on the history repository; stdout as bytes (brain files need not be UTF-8). */
export function historyGit(
  repo: HistoryRepo,
  args: readonly string[],
  options: HistoryGitOptions = {},
): Promise<Buffer> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_DIR: repo.gitDir,
    GIT_WORK_TREE: repo.workTree,
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    ...(options.date ? { GIT_AUTHOR_DATE: options.date, GIT_COMMITTER_DATE: options.date } : {}),
  };
  const fullArgs = [...SAFE_CONFIG.flatMap((c) => ["-c", c]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("git", fullArgs, {
      cwd: repo.workTree,
      env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout?.on("data", (d: Buffer) => out.push(d));
    child.stderr?.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new HistoryGitError(args, null, error.message));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString("utf8") + (signal ? `\n(killed by ${signal})` : "");
      if (code !== 0) reject(new HistoryGitError(args, code, stderr));
      else resolve(Buffer.concat(out));
    });
    if (options.input !== undefined) {
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.input);
    }
  });
}

/** The same, as trimmed text. */
export async function historyGitText(
  repo: HistoryRepo,
  args: readonly string[],
  options: HistoryGitOptions = {},
): Promise<string> {
  return (await historyGit(repo, args, options)).toString("utf8").trim();
}
