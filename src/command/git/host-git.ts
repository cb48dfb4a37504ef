import { spawn } from "node:child_process";
import { IronclawError } from "../../core/index.js";

/**
 * Every git command the host runs on a theater's repository. A worker's tree is hostile to the host's git: a
 * hook, an fsmonitor, a filter or an included config planted in it would make the host's next `git status`,
 * `commit` or `merge` run its code. So git runs here with no system or global config, hooks pointed at nothing,
 * no fsmonitor, no configured attributes file, no credential helper or pager, no prompts, and an environment
 * of its own: nothing of the warden's (keys, HOME) reaches it. The repository's own `.git/config` is trusted
 * because no cell ever sees `.git` (the worker copies a tree in and out; see the worker).
 */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.attributesFile=/dev/null",
  "core.pager=cat",
  "credential.helper=",
  "protocol.allow=never",
  "protocol.file.allow=always",
  "submodule.recurse=false",
  "advice.detachedHead=false",
  "init.defaultBranch=main",
  "gc.auto=0",
  "maintenance.auto=false",
];

/** Who the host's commits are made by: the product, not whoever runs the warden. */
const IDENTITY = { name: "IronClaw", email: "ironclaw@localhost" };

export class GitError extends IronclawError {
  override readonly name = "GitError";
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

export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Bytes for git's stdin (e.g. `git mktree`, `hash-object --stdin`). */
  input?: string;
  /** Default 60 s: a git command that runs longer is killed and reported. */
  timeoutMs?: number;
  /** Author and committer of a commit made by this command (default IronClaw). */
  author?: { name: string; email: string };
  /** Return a non-zero exit instead of throwing GitError (for commands whose exit is an answer: merge, diff). */
  allowFailure?: boolean;
  /** An index file of the caller's instead of the repository's (GIT_INDEX_FILE): building a tree off to the side. */
  indexFile?: string;
}

/** Runs `git <args>` in `cwd` with the host's safe configuration; throws GitError on a non-zero exit. */
export function hostGit(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const author = options.author ?? IDENTITY;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    ...(options.indexFile ? { GIT_INDEX_FILE: options.indexFile } : {}),
  };
  const fullArgs = [...SAFE_CONFIG.flatMap((c) => ["-c", c]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("git", fullArgs, {
      cwd,
      env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.stdout?.on("data", (d: Buffer) => out.push(d));
    child.stderr?.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new GitError(args, null, error.message));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const result = {
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + (signal ? `\n(killed by ${signal})` : ""),
      };
      if (code !== 0 && !options.allowFailure) reject(new GitError(args, code, result.stderr));
      else resolve(result);
    });
    if (options.input !== undefined) {
      // A command that exits before reading all of its input closes the pipe; its exit says what happened.
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.input);
    }
  });
}
