import { lstat, stat } from "node:fs/promises";
import { join } from "node:path";
import { runProgramViaHelper } from "../../core/index.js";
import { CellStartError } from "../cell.js";
import type { Owner } from "./bwrap-host.js";
import { identifySource, stagedPath } from "./bwrap-stage.js";

/*
 * Why attach rather than copy. Command's cells work on a tree of the host's (an order's copy of its worktree, a
 * gate's merged checkout); sending it through the protocol a file per operation, in and back out, was most of an
 * order's overhead. A cell started with a work slot (see bwrap-stage.ts: a shared mount point bound at
 * /mnt/brain/work) gets the folder bound onto that slot from inside its stage namespace, as a blank cell gets its
 * brain. A worktree's `.git` file, which names the repository's git directory, is covered by /dev/null: the cell
 * reads nothing there, what it writes there is gone, and a mount point can be neither removed nor renamed, so it
 * cannot point the host's git somewhere it controls. (A read-only remount would not help: mount flags stay in the
 * namespace that set them.) The files are handed to the cell's uid first (`chown -R -h` changes links themselves
 * and follows none).
 */
const ATTACH_WORK_SCRIPT = `set -eu
chown -R -h "$3" "$1"
mount -n --bind "$1" "$2"
[ "$4" = no-git ] || exec mount -n --bind /dev/null "$2/.git"`;

/**
 * Binds `hostDir` onto the work slot of the running cell whose first process is `pid`, with its `.git` masked
 * when it has one (a worktree's is a file; a folder there is refused). Throws CellStartError when it cannot, or
 * when what got mounted is not the directory that was opened.
 */
export async function attachWorkDir(pid: number, hostDir: string, owner: Owner): Promise<void> {
  const slot = stagedPath("work");
  const gitFile = await lstat(join(hostDir, ".git")).catch(() => undefined);
  if (gitFile && !gitFile.isFile())
    throw new CellStartError(`${hostDir} has a .git that is not a file (not a worktree): it is not attached`);
  const source = { name: "work" as const, source: hostDir, noFollow: true };
  const opened = await identifySource(source);
  const run = await runProgramViaHelper(
    "nsenter",
    [`--target=${pid}`, "--mount", "--", "/bin/sh", "-c", ATTACH_WORK_SCRIPT, "ironclaw-attach-work"].concat(
      hostDir,
      slot,
      `${owner.uid}:${owner.gid}`,
      gitFile ? "git" : "no-git",
    ),
    60_000,
  );
  if (!run.ok)
    throw new CellStartError(
      `could not attach ${hostDir}: ${run.stderr.trim() || run.error || `exit ${run.code}`}`,
    );
  const inCell = `/proc/${pid}/root${slot}`;
  const mounted = await stat(inCell, { bigint: true });
  if (`${mounted.dev}:${mounted.ino}` !== opened)
    throw new CellStartError(`${hostDir} changed while it was attached; start the cell again`);
  if (!gitFile) return;
  const mask = await stat(join(inCell, ".git"), { bigint: true });
  const devNull = await stat("/dev/null", { bigint: true });
  if (!mask.isCharacterDevice() || mask.rdev !== devNull.rdev)
    throw new CellStartError(`the .git of ${hostDir} is not masked in the cell`);
}
