import { IronclawError, runProgramViaHelper } from "../../core/index.js";

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
export async function hostGit(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitResult> {
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
  // Through the small helper process: an order runs some twenty git commands, and each forked from the
  // warden's own (large) process cost ~10 ms of fork more than git's own ~2 ms (program-runner.ts).
  const outcome = await runProgramViaHelper("git", fullArgs, {
    cwd,
    env,
    input: options.input,
    timeoutMs: options.timeoutMs ?? 60_000,
    once: true,
  });
  if (outcome.code === null && !outcome.signal && outcome.error)
    throw new GitError(args, null, outcome.error);
  const result = {
    code: outcome.code,
    stdout: outcome.stdout,
    stderr: outcome.stderr + (outcome.signal ? `\n(killed by ${outcome.signal})` : ""),
  };
  if (result.code !== 0 && !options.allowFailure) throw new GitError(args, result.code, result.stderr);
  return result;
}
