import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runProgram } from "../../core/index.js";
import { CellStartError } from "../cell.js";

/*
 * Why a stage. A root warden runs each bwrap cell as an unprivileged host uid, and bwrap resolves every bind
 * source as that uid: a brain under /root/.ironclaw (/root is 0700) fails with "Can't find source path …:
 * Permission denied". bwrap's own --bind-fd does not help with bwrap 0.8 (Debian's backport): it realpath()s
 * /proc/self/fd/N as the sandbox uid before mounting, which walks the same 0700 directories (strace: readlink
 * of /root/… → EACCES). Nor can the fd itself be the mount source: the kernel refuses to bind a directory
 * whose fd was opened in another mount namespace (`mount --no-canonicalize --bind /proc/self/fd/3` → EINVAL).
 *
 * So root does the binding, in a mount namespace that belongs to this one cell (`unshare --mount`): it binds
 * the brain, the package root, node's prefix and the word table onto fixed, traversable mount points under
 * STAGE_ROOT, checks each bind is the very directory it opened with O_NOFOLLOW (device and inode, as bwrap 0.10
 * checks its --bind-fd), then drops to the cell's uid (setpriv) and runs prlimit + bwrap, which bind from the
 * stage. A brain image is loop-mounted there instead of bound, which is also why only root can have one.
 * The namespace, and with it every stage mount, is gone when the cell's last process exits; nothing is
 * mounted in the warden's own namespace, so nothing can leak there.
 */
export const STAGE_ROOT = "/run/ironclaw-cell-stage";

/** `skills-hold`: where a blank cell's skills are made read-only before they go onto its `skills` slot. */
export type StageName = "brain" | "package" | "node" | "embeddings" | "work" | "skills" | "skills-hold";

export function stagedPath(name: StageName): string {
  return join(STAGE_ROOT, name);
}

export interface StageSource {
  name: StageName;
  source: string;
  /** Refuse a link as the source itself (guest-adjacent paths); host-owned paths may be links. */
  noFollow: boolean;
  /**
   * `image`: the source is an ext4 brain image, loop-mounted (nodev, nosuid) instead of bound, then handed to
   * the cell's uid when it is not its already. The mount lives in the cell's namespace only, and the loop
   * device detaches itself when the namespace goes. `slot` (no source): the mount point bound onto itself
   * and made shared, so what is mounted on it later (bwrap-attach.ts) shows in the cell too: a blank cell's
   * brain, attached when the cell is handed out. `readonly`: bound, then remounted read-only before the cell
   * starts, so the cell's namespace receives it read-only and locked so (its user's installed skills).
   */
  kind?: "bind" | "image" | "slot" | "readonly";
}

/**
 * The shell that mounts the sources, as root inside the cell's own mount namespace; paths arrive as arguments
 * only. Every program it starts is a fork and an exec on the cell's start path, so the binds are checked with
 * one `stat` after all of them (their targets are the fixed stagedPath names, safe to list unquoted), and an
 * image's chown and chmod run only when its owner or mode is not the cell's already.
 */
const MOUNT_SOURCES = `set -eu
changed() {
  echo "ironclaw-stage: $1 changed while the cell was starting; start it again" >&2
  exit 1
}
binds=""; want=""
while [ "$1" != "--" ]; do
  if [ "$1" = image ]; then
    [ "$(stat -c %d:%i "$2")" = "$4" ] || changed "$2"
    mount -n -o loop,nodev,nosuid,noatime "$2" "$3"
    # chown -R -h walks physically and changes links themselves: nothing in the image is followed out of it.
    case "$(stat -c %u:%g:%a "$3")" in
      "$uid:$gid:700") ;;
      "$uid:$gid:"*) chmod 0700 "$3" ;;
      *:700) chown -R -h "$uid:$gid" "$3" ;;
      *) chown -R -h "$uid:$gid" "$3"; chmod 0700 "$3" ;;
    esac
  elif [ "$1" = slot ]; then
    mount -n --bind "$3" "$3"
    mount -n --make-shared "$3"
  elif [ "$1" = readonly ]; then
    mount -n --bind "$2" "$3"
    mount -n -o remount,bind,ro,nodev,nosuid "$3"
    binds="$binds $3"; want="$want $4"
  else
    mount -n --bind "$2" "$3"
    binds="$binds $3"; want="$want $4"
  fi
  shift 4
done
shift
# Unquoted, the command substitution's lines join with single spaces.
[ -z "$binds" ] || [ " $(echo $(stat -c %d:%i $binds))" = "$want" ] || changed "a bind source of the cell"
`;

/** The stage: join the cell's cgroups first, mount the sources, then become the cell's uid for good. */
const STAGE_SCRIPT = `uid=$1; gid=$2; shift 2
while [ "$1" != "--" ]; do
  echo $$ > "$1"
  shift
done
shift
${MOUNT_SOURCES}exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"`;

/**
 * Wraps the prlimit + bwrap command so it runs as `owner` with every source bound at its stagedPath, after
 * joining the cgroups whose cgroup.procs files are given (first, so every later process is inside).
 * Throws CellStartError when a source is missing, a link where none may be, or the stage is unsafe.
 */
export async function stageCommand(
  sources: StageSource[],
  owner: { uid: number; gid: number },
  cgroupProcs: string[],
  inner: { file: string; args: string[] },
): Promise<{ file: string; args: string[] }> {
  await prepareStage(sources.map((s) => s.name));
  const binds = await sourceArgs(sources);
  return {
    file: "unshare",
    args: [
      // slave, not private: a folder mounted under SCRATCH_ROOT after this cell started (a capped tmpfs for an
      // order's tree) must show in its stage, to be attached; nothing mounted here goes back to the host.
      ...["--mount", "--propagation", "slave", "--", "/bin/sh", "-c", STAGE_SCRIPT, "ironclaw-stage"],
      ...[String(owner.uid), String(owner.gid), ...cgroupProcs, "--"],
      ...[...binds, "--", inner.file, ...inner.args],
    ],
  };
}

async function sourceArgs(sources: StageSource[]): Promise<string[]> {
  const args: string[] = [];
  for (const s of sources) {
    const id = s.kind === "slot" ? "-" : await identifySource(s);
    args.push(s.kind ?? "bind", s.kind === "slot" ? "-" : s.source, stagedPath(s.name), id);
  }
  return args;
}

/**
 * device:inode of the source, opened so a guest cannot redirect it (O_NOFOLLOW where asked). O_RDONLY stands
 * in for O_PATH, which node's fs.constants lacks: root may open any directory, and only fstat follows.
 */
export async function identifySource(source: StageSource): Promise<string> {
  const flags =
    constants.O_RDONLY |
    (source.kind === "image" ? 0 : constants.O_DIRECTORY) |
    (source.noFollow ? constants.O_NOFOLLOW : 0);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(source.source, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what = source.kind === "image" ? "a file" : "a directory";
    const why =
      code === "ELOOP" || code === "ENOTDIR"
        ? `is not ${what} (a symbolic link?)`
        : `cannot be opened (${code})`;
    throw new CellStartError(`the cell's ${source.name} ${source.source} ${why}`, { cause: error });
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (source.kind === "image" && !info.isFile())
      throw new CellStartError(`the cell's ${source.name} ${source.source} is not a regular file`);
    return `${info.dev}:${info.ino}`;
  } finally {
    await handle.close();
  }
}

/**
 * The mount points, created once: root-owned and writable by root alone, or another local user could plant
 * a link there and have root mount over its target (in the cell's namespace, but still).
 */
export async function prepareStage(names: StageName[]): Promise<void> {
  if (names.includes("work")) await prepareScratchRoot();
  for (const dir of [STAGE_ROOT, ...names.map(stagedPath)]) {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    const info = await lstat(dir);
    if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
      throw new CellStartError(
        `${dir} must be a directory owned by root and writable only by root: remove it and start again`,
      );
    }
  }
}

/**
 * Where the scratch folders attached to cells are mounted (command's bounded-scratch.ts): a shared mount of its
 * own, made so before any cell with a work slot starts, so that a tmpfs mounted under it later reaches the stage
 * namespace of a cell already running (a warm one), whose copy of it is a slave.
 */
export const SCRATCH_ROOT = "/run/ironclaw-scratch";

/** Creates SCRATCH_ROOT (root's alone) and makes it a shared mount point, once. */
export async function prepareScratchRoot(): Promise<void> {
  await mkdir(SCRATCH_ROOT, { recursive: true, mode: 0o700 });
  let info = await lstat(SCRATCH_ROOT);
  // Made readable by others but writable by root alone (systemd's RuntimeDirectory= for the service): nobody
  // else could have put anything in it, so it is closed to root's alone here.
  if (info.isDirectory() && info.uid === 0 && (info.mode & 0o077) !== 0 && (info.mode & 0o022) === 0) {
    await chmod(SCRATCH_ROOT, 0o700);
    info = await lstat(SCRATCH_ROOT);
  }
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o077) !== 0)
    throw new CellStartError(
      `${SCRATCH_ROOT} must be a directory of root's alone: remove it and start again`,
    );
  const mounted = (await readFile("/proc/self/mountinfo", "utf8"))
    .split("\n")
    .filter((line) => line.split(" ")[4] === SCRATCH_ROOT)
    .at(-1);
  if (mounted?.includes(" shared:")) return;
  for (const args of [
    ...(mounted ? [] : [["--bind", SCRATCH_ROOT, SCRATCH_ROOT]]),
    ["--make-shared", SCRATCH_ROOT],
  ]) {
    const run = await runProgram("mount", args);
    if (!run.ok) throw new CellStartError(`could not prepare ${SCRATCH_ROOT}: ${run.stderr.trim()}`);
  }
}
