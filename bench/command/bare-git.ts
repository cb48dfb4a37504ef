// The baseline: what command wraps, done with plain git as a person would — a worktree on a new branch, the
// order's note committed in it, the branch merged into main with a merge commit. Run in the same process, on a
// repository of the same size, interleaved with the orders it is compared against.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@localhost",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@localhost",
};

const git = (cwd: string, ...args: string[]) => run("git", args, { cwd, env });

/** One order's git with nothing around it; returns its milliseconds. `repo` has main checked out. */
export async function bareGitOrder(repo: string, worktrees: string, name: string): Promise<number> {
  const started = performance.now();
  const worktree = join(worktrees, name);
  await git(repo, "worktree", "add", "-q", "-b", name, worktree, "main");
  await mkdir(join(worktree, "notes"), { recursive: true });
  await writeFile(join(worktree, "notes", `${name}.md`), `# notes/${name}.md\n`);
  await git(worktree, "add", "-A");
  await git(worktree, "commit", "-q", "-m", `order ${name}`);
  await git(repo, "merge", "--no-ff", "--no-edit", "-q", "-m", `Merge ${name}`, name);
  return performance.now() - started;
}
