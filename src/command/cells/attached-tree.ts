import type { BigIntStats } from "node:fs";
import { chmod, lstat, readdir, readlink, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { boundedScratch, footprintOf, runTool } from "./bounded-scratch.js";
import { isGitName, readHostFile, removeHostFile, writeHostFile } from "./host-tree.js";
import { DEFAULT_TRANSFER_LIMITS, type TransferLimits, type TransferReport } from "./tree-transfer.js";

/** What the host found in a cell's attached copy of a worktree once the cell was gone. */
export interface AttachedTreeCheck {
  /** What the cell changed against the worktree: new or changed files and links, removed paths. */
  report: TransferReport;
  /** Why the cell's changes cannot be kept (empty when they can), each naming the path and the rule. */
  refusals: string[];
}

/** Over the caps: room for a few folders and for the take-back's walk to see that a cap was passed. */
const SCRATCH_SLACK_BYTES = 8 * 1024 * 1024;
const SCRATCH_SLACK_INODES = 1_000;

/**
 * A file or link of a tree. `untouched`: the file, and every folder on its path below the root, last changed
 * (ctime) before the copy was handed to the cell, so the cell has not written, moved, linked or chmodded it.
 */
type Entry =
  | { kind: "file"; size: number; executable: boolean; untouched?: boolean }
  | { kind: "link"; target: string };

/**
 * A scratch copy of an order's worktree for a cell to have attached (CellHandle.attachWork), without its `.git`:
 * a local copy (`cp -a`, links copied as links) costs a few milliseconds where the protocol's took hundreds, and
 * the worktree itself is never in the cell, so an attempt superseded while its cell still ran writes nothing there.
 * Returns the copy's folder, its removal, and `handedOver`: the file system's clock read once the host is done with
 * the copy (attaching it hands every file to the cell's uid, which moves every ctime) and before the cell's turn
 * begins — the take-back's `copiedBefore`.
 */
export async function scratchCopyOf(
  worktree: string,
  limits: TransferLimits = DEFAULT_TRANSFER_LIMITS,
): Promise<{ tree: string; remove: () => Promise<void>; handedOver: () => Promise<bigint> }> {
  // Room for the worktree as it is and for what the order may add (the caps the take-back holds it to), no more.
  const now = await footprintOf(worktree, isGitName);
  const scratch = await boundedScratch("ironclaw-order-tree-", {
    bytes: now.bytes + limits.maxBytes + SCRATCH_SLACK_BYTES,
    inodes: now.inodes + limits.maxFiles + SCRATCH_SLACK_INODES,
  });
  const tree = join(scratch.dir, "work");
  const remove = () => scratch.remove();
  try {
    await runTool("cp", ["-a", "--no-dereference", "--reflink=auto", "--", worktree, tree]);
    await rm(join(tree, ".git"), { recursive: true, force: true });
    return { tree, remove, handedOver: () => clockMark(scratch.dir) };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * The file system's own clock, read by creating a file beside the tree (out of the cell's sight): everything the
 * copy holds changed no later than this ctime, and whatever the cell does after it is handed the copy gets a
 * ctime no earlier (the clock the kernel stamps ctimes with; a write in the same tick gets an equal one).
 *
 * The clock is coarse (a tick of some milliseconds), so the attach's last changes often share the mark's tick and
 * would count as the cell's: every such file was then read on both sides to compare (a 200-file tree took 50–70
 * ms to take back instead of ~11). So the mark is moved on until its tick is past the first one it read. A change
 * the cell made in between is stamped before the mark and is not taken back (it is lost, never let in unchecked);
 * the cell's turn has not begun then.
 */
async function clockMark(dir: string): Promise<bigint> {
  const mark = join(dir, "copied");
  await writeFile(mark, "");
  const first = (await lstat(mark, { bigint: true })).ctimeNs;
  for (let tries = 0; tries < MARK_TRIES; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    await writeFile(mark, "");
    const now = (await lstat(mark, { bigint: true })).ctimeNs;
    if (now > first) return now;
  }
  // A clock that did not move: ties are compared, as they always may be.
  return first;
}

/** How many times the mark is stamped again waiting for the clock's next tick (~1 ms each; ticks are ≤ 10 ms). */
const MARK_TRIES = 50;

/**
 * The host's side of an attached turn, once the cell is gone: the same rules the copy back out of a cell holds
 * (tree-transfer.ts), over the cell's copy. Every entry is looked at with lstat and read with O_NOFOLLOW. A change
 * (against the worktree, which is HEAD right after the attempt's first commit) must be inside `allow` (the order's
 * fs_allowlist); a link must stay inside the tree and off `.git`; nothing may be named `.git`; nothing may be other
 * than a file, folder or link; the copy stays under the caps, and the walk stops at the file cap. When every rule
 * holds the changes are written into the worktree (through no link, as copyTreeOut writes) and reported; when one
 * fails, nothing is written and every failure is returned.
 */
export async function takeBackAttachedTree(
  tree: string,
  worktree: string,
  options: {
    allow?: ((path: string) => boolean) | undefined;
    limits?: TransferLimits;
    /** scratchCopyOf's handedOver(), read before the turn: files the cell left untouched are not read to compare. */
    copiedBefore?: bigint;
  } = {},
): Promise<AttachedTreeCheck> {
  const limits = options.limits ?? DEFAULT_TRANSFER_LIMITS;
  const allow = options.allow ?? (() => true);
  const refusals: string[] = [];
  const [cell, host] = await Promise.all([
    walk(tree, limits, refusals, options.copiedBefore ?? -1n),
    walk(worktree, { ...limits, maxFiles: Number.POSITIVE_INFINITY }, [], undefined),
  ]);
  const changed: string[] = [];
  let bytes = 0;
  for (const [path, entry] of cell) {
    if (await sameAs(entry, host.get(path), join(tree, path), join(worktree, path), limits)) continue;
    changed.push(path);
    if (!allow(path)) refusals.push(`${path}: outside the order's fs_allowlist`);
    else if (entry.kind === "link" && leavesTree(path, entry.target))
      refusals.push(`${path}: a link to ${entry.target}, outside the tree or into .git`);
    else if (entry.kind === "file" && entry.size > limits.maxFileBytes)
      refusals.push(`${path}: ${entry.size} bytes is over the ${limits.maxFileBytes}-byte file cap`);
    else if (entry.kind === "file") bytes += entry.size;
  }
  const removed = [...host.keys()].filter((path) => !cell.has(path));
  for (const path of removed)
    if (!allow(path)) refusals.push(`${path}: removed, outside the order's fs_allowlist`);
  const report: TransferReport = { files: changed, bytes, skipped: [], removed };
  if (refusals.length > 0) return { report, refusals };
  for (const path of changed) {
    const entry = cell.get(path) as Entry;
    if (entry.kind === "file") {
      await writeHostFile(worktree, path, await readHostFile(join(tree, path), limits.maxFileBytes));
      await chmod(join(worktree, path), entry.executable ? 0o755 : 0o644);
    } else await placeLink(worktree, path, entry.target);
  }
  for (const path of removed) await removeHostFile(worktree, path);
  return { report, refusals };
}

/**
 * Files and links under `root` by slash path. The cell's copy (`copiedBefore` given) is walked as hostile, each
 * file marked untouched when neither it nor a folder on its path changed since the copy; the worktree (undefined)
 * has its own `.git` at the root left out.
 */
async function walk(
  root: string,
  limits: TransferLimits,
  refusals: string[],
  copiedBefore: bigint | undefined,
): Promise<Map<string, Entry>> {
  const found = new Map<string, Entry>();
  let entries = 0;
  let bytes = 0;
  // A folder moved or written into since the copy may hold old files under new paths: all of them are compared.
  const folders = [{ rel: "", touched: false }];
  while (folders.length > 0) {
    const { rel, touched } = folders.pop() as { rel: string; touched: boolean };
    const paths = (await readdir(join(root, rel)))
      .sort()
      .map((name) => (rel === "" ? name : `${rel}/${name}`))
      .filter((path) => copiedBefore !== undefined || path !== ".git");
    entries += paths.length;
    if (entries > limits.maxFiles) {
      refusals.push(`the cell's tree holds more than ${limits.maxFiles} entries`);
      return found;
    }
    // A folder's entries are looked at together (one round to the file system's threads, not one each).
    const infos = await Promise.all(paths.map((path) => lstat(join(root, path), { bigint: true })));
    for (const [i, path] of paths.entries()) {
      const info = infos[i] as BigIntStats;
      const name = path.slice(path.lastIndexOf("/") + 1);
      const changed = touched || copiedBefore === undefined || info.ctimeNs >= copiedBefore;
      if (isGitName(name)) refusals.push(`${path}: a .git the host's git would read`);
      else if (info.isDirectory()) folders.push({ rel: path, touched: changed });
      else if (info.isSymbolicLink())
        found.set(path, { kind: "link", target: await readlink(join(root, path)) });
      else if (info.isFile()) {
        const size = Number(info.size);
        const executable = (info.mode & 0o100n) !== 0n;
        found.set(path, { kind: "file", size, executable, ...(changed ? {} : { untouched: true }) });
        bytes += size;
      } else refusals.push(`${path}: not a regular file, folder or link`);
    }
  }
  if (bytes > limits.maxBytes)
    refusals.push(`the cell's tree holds ${bytes} bytes, over the cap of ${limits.maxBytes}`);
  return found;
}

async function sameAs(
  entry: Entry,
  was: Entry | undefined,
  cellPath: string,
  hostPath: string,
  limits: TransferLimits,
): Promise<boolean> {
  if (was === undefined || was.kind !== entry.kind) return false;
  if (entry.kind === "link" || was.kind === "link")
    return entry.kind === "link" && was.kind === "link" && entry.target === was.target;
  if (entry.size !== was.size || entry.executable !== was.executable || entry.size > limits.maxBytes)
    return false;
  // The copy was the worktree, and the cell has not touched this file since: no need to read both.
  if (entry.untouched) return true;
  const [mine, theirs] = await Promise.all([
    readHostFile(cellPath, limits.maxBytes),
    readHostFile(hostPath, limits.maxBytes),
  ]);
  return mine.equals(theirs);
}

/** A link at `path` in the worktree, where a file or link may be: git keeps a link as data, never followed. */
async function placeLink(worktree: string, path: string, target: string): Promise<void> {
  // Writes an empty file through the same checks first (parents real folders, no link followed), then swaps it.
  await writeHostFile(worktree, path, Buffer.alloc(0));
  await unlink(join(worktree, path));
  await symlink(target, join(worktree, path));
}

/** A link's target as git stores it: absolute, climbing out of the tree, or through a `.git`. */
function leavesTree(path: string, target: string): boolean {
  if (posix.isAbsolute(target)) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  return resolved === ".." || resolved.startsWith("../") || resolved.split("/").some(isGitName);
}
