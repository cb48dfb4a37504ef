import { chmod, readFile, stat } from "node:fs/promises";
import { runProgramViaHelper } from "../../core/index.js";
import { CellStartError } from "../cell.js";
import type { BwrapBrain } from "./bwrap-brain.js";
import type { Owner } from "./bwrap-host.js";
import { identifySource, type StageSource, stagedPath } from "./bwrap-stage.js";

/*
 * Why the hand-out does not reuse the stage's script. Every program the warden starts costs 2–3 ms on our
 * hosts (measured: one `stat` 2.2 ms, nsenter with a shell 3 ms), and that script starts six for a brain
 * image (nsenter, sh, stat, mount, stat, chown), which was most of a blank cell's hand-out. Here the shell
 * only mounts and execs chown; the checks it made with `stat` are made by the warden itself, before and
 * after, through the cell's own view of the slot (/proc/<pid>/root): the mount must be the very image or
 * directory the warden opened with O_NOFOLLOW, owned by the cell's uid, mode 0700.
 */
const ATTACH_SCRIPT = `set -eu
if [ "$1" = image ]; then
  mount -n -o loop,nodev,nosuid,noatime "$2" "$3"
  # chown -R -h walks physically and changes links themselves: nothing in the image is followed out of it.
  exec chown -R -h "$4" "$3"
fi
exec mount -n --bind "$2" "$3"`;

/**
 * Mounts the user's brain onto the slot of the running blank cell whose first process is `pid` (its image
 * loop-mounted and handed to `owner`, or its directory bound), from inside the cell's mount namespace.
 * Throws CellStartError when it cannot, or when what got mounted is not what was opened.
 */
export async function attachBrain(pid: number, brain: BwrapBrain, owner: Owner): Promise<void> {
  const slot = stagedPath("brain");
  const source: StageSource =
    brain.kind === "image"
      ? { name: "brain", source: brain.file, noFollow: true, kind: "image" }
      : { name: "brain", source: brain.dir, noFollow: true };
  const opened = await identifySource(source);
  const run = await runProgramViaHelper(
    "nsenter",
    [`--target=${pid}`, "--mount", "--", "/bin/sh", "-c", ATTACH_SCRIPT, "ironclaw-attach"].concat(
      brain.kind,
      source.source,
      slot,
      `${owner.uid}:${owner.gid}`,
    ),
    60_000,
  );
  if (!run.ok) throw new CellStartError(`${run.stderr.trim() || run.error || `exit ${run.code}`}`);
  const inCell = `/proc/${pid}/root${slot}`;
  const mounted = await stat(inCell, { bigint: true });
  const changed = () =>
    new CellStartError(`${source.source} changed while the cell was handed out; start it again`);
  if (brain.kind === "dir") {
    if (`${mounted.dev}:${mounted.ino}` !== opened) throw changed();
    return;
  }
  // The image: the same file before and after, and the loop device under the slot is backed by it.
  if ((await identifySource(source)) !== opened) throw changed();
  const backing = await readFile(`/sys/dev/block/${deviceName(mounted.dev)}/loop/backing_file`, "utf8").catch(
    () => "",
  );
  if (backing.trim() !== source.source) throw changed();
  if (mounted.uid !== BigInt(owner.uid) || mounted.gid !== BigInt(owner.gid))
    throw new CellStartError(`the brain of the cell is not its uid's after chown`);
  if ((mounted.mode & 0o777n) !== 0o700n) await chmod(inCell, 0o700);
}

/** major:minor of a device number as glibc encodes it (makedev). */
function deviceName(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}
