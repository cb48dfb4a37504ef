import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, type Stats } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { IronclawError } from "../core/index.js";

/**
 * Reading a guest-writable brain from the host. The brain is hostile: between any check and any read the guest
 * may swap a file or a directory for a symlink to a host file. So a file is opened once and checked on the
 * open descriptor, and every path component is looked up inside the directory opened before it
 * (`/proc/self/fd/<dir>/<name>`, the openat(2) of node's fs) with O_NOFOLLOW. Symlinks are resolved here, one
 * hop at a time, and only while they stay inside the brain; nothing the kernel resolves can lead out.
 *
 * The calls are synchronous: a lookup is a handful of system calls of a few microseconds each, and through the
 * thread pool each became a round trip that cost more than the call (a sixth of an indexing pass).
 */

export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO planted in the brain opens at once (and is refused as not a regular file) instead of
// blocking the indexer until some writer appears. Reads of regular files ignore it.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Symlinks followed for one path, counting re-tries after a link vanished mid-lookup (Linux allows 40). */
export const MAX_SYMLINK_HOPS = 8;

const READ_CHUNK = 64 * 1024;

/** A brain file the host will not read; `rule` says why, in words a skipped-file report can show. */
export class BrainFileRefusal extends IronclawError {
  override readonly name = "BrainFileRefusal";
  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super("brain_file_refused", `${path}: ${rule}`);
  }
}

export interface OpenedBrainFile {
  /** The open descriptor; the caller closes it. */
  fd: number;
  /** fstat of the open descriptor: what will be read, not what a path pointed at earlier. */
  info: Stats;
}

/**
 * Opens the regular file at a brain-relative path; undefined when nothing is there (a dangling link, a removed
 * file, a parent that is not a directory). Throws BrainFileRefusal for a link out of the brain, too many links,
 * or anything but a regular file. The caller closes the descriptor.
 */
export function openBrainFile(root: string, path: string): OpenedBrainFile | undefined {
  const dirs: number[] = [openSync(root, DIR_FLAGS)];
  // Components still to resolve, the next one last; a symlink's target is pushed in its place.
  const pending = components(path).reverse();
  let hops = 0;
  try {
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (name === "..") {
        if (dirs.length === 1) throw new BrainFileRefusal(path, "leads outside the brain");
        closeSync(dirs.pop() as number);
        continue;
      }
      const at = `/proc/self/fd/${dirs.at(-1) as number}/${name}`;
      const last = pending.length === 0;
      const opened = openEntry(at, last ? FILE_FLAGS : DIR_FLAGS, path);
      if (opened === undefined) return undefined;
      if (typeof opened === "number") {
        if (!last) {
          dirs.push(opened);
          continue;
        }
        return checkedFile(opened, path);
      }
      const target = linkTarget(at);
      // Not a link (any more): a file where a directory was asked for is simply not there; a link swapped back
      // to something else is looked up again.
      if (target === undefined && opened === "ENOTDIR") return undefined;
      if (++hops > MAX_SYMLINK_HOPS)
        throw new BrainFileRefusal(path, `passes through more than ${MAX_SYMLINK_HOPS} symlinks`);
      if (target === undefined) {
        pending.push(name);
        continue;
      }
      if (isAbsolute(target)) {
        const inside = relative(root, target);
        if (inside === ".." || inside.startsWith("../") || isAbsolute(inside))
          throw new BrainFileRefusal(path, "leads outside the brain through a symlink");
        for (const dir of dirs.splice(1)) closeSync(dir);
        pending.push(...components(inside).reverse());
      } else pending.push(...components(target).reverse());
    }
    throw new BrainFileRefusal(path, "is not a regular file");
  } finally {
    for (const dir of dirs) closeSync(dir);
  }
}

/** The descriptor of an entry, the code of a link where none was allowed, or undefined when nothing is there. */
function openEntry(at: string, flags: number, path: string): number | "ELOOP" | "ENOTDIR" | undefined {
  try {
    return openSync(at, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // O_NOFOLLOW answers a link with ELOOP, or ENOTDIR when a directory was asked for.
    if (code === "ELOOP" || code === "ENOTDIR") return code;
    if (code === "ENOENT") return undefined;
    // A socket (ENXIO) or a file the guest made unreadable: skipped, so the guest cannot stop a pass.
    if (code === "ENXIO") throw new BrainFileRefusal(path, "is not a regular file");
    if (code === "EACCES") throw new BrainFileRefusal(path, "is not readable by the host");
    throw error;
  }
}

function linkTarget(at: string): string | undefined {
  try {
    return readlinkSync(at);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The bytes of a brain file, read from the one descriptor that was checked, never more than `maxBytes`; a
 * larger file is refused whole rather than indexed in part. The size from fstat is not trusted: the file can
 * grow while it is read.
 */
export function readBrainFile(
  root: string,
  path: string,
  maxBytes: number,
): { bytes: Buffer; info: Stats } | undefined {
  const opened = openBrainFile(root, path);
  if (!opened) return undefined;
  const { fd, info } = opened;
  try {
    const tooLarge = () => new BrainFileRefusal(path, `is larger than ${maxBytes} bytes`);
    if (info.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, maxBytes + 1 - total));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge();
    }
    return { bytes: Buffer.concat(chunks, total), info };
  } finally {
    closeSync(fd);
  }
}

function checkedFile(fd: number, path: string): OpenedBrainFile {
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new BrainFileRefusal(path, "is not a regular file");
    return { fd, info };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function components(path: string): string[] {
  return path.split("/").filter((c) => c !== "" && c !== ".");
}
