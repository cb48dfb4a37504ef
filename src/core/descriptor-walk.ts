import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { IronclawError } from "./errors.js";

/**
 * Paths inside a tree that someone else writes at the same time (a cell's tools, a guest) are confined by the
 * kernel, not by a check: every component is opened inside the directory opened before it
 * (`/proc/self/fd/<dir>/<name>`, the openat(2) of node's fs) with O_NOFOLLOW, so no symlink is ever followed,
 * and the file is read or written through the descriptor that was checked. Checking a path and opening it again
 * is racy: a link flipped between the two leads anywhere. Read-only directories are known by the (dev, ino) of
 * the opened directory as well as by their place, so a rename cannot disguise them.
 *
 * The calls are synchronous: each is a system call of a few microseconds, cheaper than a thread-pool round trip.
 */

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO opens at once (and is refused as not a regular file) instead of blocking the caller.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const UPDATE_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const APPEND_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ_CHUNK = 64 * 1024;

/** A path the walk will not use; `rule` says why, in words a tool result or a refusal can show. */
export class PathRefusal extends IronclawError {
  override readonly name = "PathRefusal";
  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super("path_refused", `${path} ${rule}`);
  }
}

/** A directory as the kernel knows it, whatever it is called now. */
export interface DirIdentity {
  dev: number;
  ino: number;
}

/** Directories of a tree that may be read but never changed: by identity, and by their path from the root. */
export interface ReadOnlyDirs {
  ids: readonly DirIdentity[];
  /** Root-relative paths ("config", "db"), matched on the components walked. */
  paths: readonly string[];
}

/** A directory opened by the walk; the caller closes it with closeDir. */
export interface OpenDir {
  fd: number;
  /** This directory or one it lies in is read-only. */
  readOnly: boolean;
  /** The path as it was asked for, for messages. */
  shown: string;
}

export interface WalkOptions {
  /** Creates missing directories on the way (mkdir -p through the same walk). */
  create?: boolean;
  readOnly?: ReadOnlyDirs;
  /** The path as the caller named it, for refusals. */
  shown?: string;
}

let procChecked = false;

/**
 * Fails closed when /proc is not mounted: without /proc/self/fd there is no openat here, and falling back to
 * checking names would bring the race back.
 */
export function requireDescriptorPaths(): void {
  if (procChecked) return;
  if (!existsSync("/proc/self/fd")) {
    throw new PathRefusal(
      "/proc/self/fd",
      "is missing (/proc is not mounted): file access is refused rather than checked by name",
    );
  }
  procChecked = true;
}

/** The identity of a real directory, or undefined when the path is missing or not a directory (a link, a file). */
export function identityOf(path: string): DirIdentity | undefined {
  try {
    const info = lstatSync(path);
    return info.isDirectory() ? { dev: info.dev, ino: info.ino } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits a root-relative path into its `/`-separated components, refusing `..` (also between backslashes, as
 * the path checks before this one did) and NUL; empty and `.` components are dropped.
 */
export function pathComponents(path: string, shown = path): string[] {
  if (path.includes("\0")) throw new PathRefusal(shown, "contains a NUL byte");
  if (path.split(/[\\/]/).includes("..")) throw new PathRefusal(shown, "contains .., which is not allowed");
  return path.split("/").filter((p) => p !== "" && p !== ".");
}

/**
 * Opens the directory `parts` below the real directory `root`, never following a link on any component.
 * Undefined when a component is missing (and `create` is off); a PathRefusal when one is a link or a file.
 */
export function openDirectory(
  root: string,
  parts: readonly string[],
  options: WalkOptions = {},
): OpenDir | undefined {
  requireDescriptorPaths();
  const shown = options.shown ?? parts.join("/");
  let fd = openSync(root, DIR_FLAGS);
  try {
    let readOnly = isReadOnly(fd, "", options.readOnly);
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i] as string;
      const at = `/proc/self/fd/${fd}/${name}`;
      let next = openDirEntry(at, shown);
      if (next === undefined) {
        if (!options.create) return close(fd);
        if (readOnly) throw new PathRefusal(shown, "is read-only for tools");
        try {
          mkdirSync(at);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
        next = openDirEntry(at, shown);
        if (next === undefined) return close(fd);
      }
      closeSync(fd);
      fd = next;
      readOnly ||= isReadOnly(fd, parts.slice(0, i + 1).join("/"), options.readOnly);
    }
    return { fd, readOnly, shown };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

export function closeDir(dir: OpenDir): void {
  closeSync(dir.fd);
}

/** The entries of an open directory, as readdir gives them (links reported as links, never followed). */
export function listDirectory(dir: OpenDir): Dirent[] {
  return readdirSync(`/proc/self/fd/${dir.fd}`, { withFileTypes: true });
}

/** lstat of an entry of an open directory; undefined when it is not there. */
export function entryInfo(dir: OpenDir, name: string): Stats | undefined {
  try {
    return lstatSync(`/proc/self/fd/${dir.fd}/${name}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export interface OpenFile {
  /** The descriptor that was checked; the caller closes it. */
  fd: number;
  /** fstat of that descriptor: what will be read or written, not what a name pointed at earlier. */
  info: Stats;
}

/**
 * Opens the regular file `name` of an open directory without following a link. `read` only reads; `update`
 * reads and writes an existing file; `create` makes it when missing. Undefined when it does not exist (read,
 * update). Writing is refused in a read-only directory and on a file with other hard links (one of them could
 * be a protected file).
 */
export function openFile(
  dir: OpenDir,
  name: string,
  mode: "read" | "update" | "create" | "append",
): OpenFile | undefined {
  if (name.includes("/") || name === ".." || name === "." || name === "")
    throw new PathRefusal(dir.shown, "is not a single file name");
  const writes = mode !== "read";
  if (writes && dir.readOnly) throw new PathRefusal(dir.shown, "is read-only for tools");
  const flags = { read: READ_FLAGS, update: UPDATE_FLAGS, create: CREATE_FLAGS, append: APPEND_FLAGS }[mode];
  let fd: number;
  try {
    fd = openSync(`/proc/self/fd/${dir.fd}/${name}`, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new PathRefusal(dir.shown, "is a symlink; file tools do not follow links");
    if (code === "EISDIR") throw new PathRefusal(dir.shown, "is a directory");
    if (code === "ENXIO") throw new PathRefusal(dir.shown, "is not a regular file");
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      throw new PathRefusal(dir.shown, info.isDirectory() ? "is a directory" : "is not a regular file");
    if (writes && info.nlink > 1)
      throw new PathRefusal(dir.shown, "has other hard links and is not written through one of them");
    return { fd, info };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Up to `maxBytes` of an open file from its start; `size` is what fstat said, `bytes` what was read. */
export function readOpenFile(file: OpenFile, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < maxBytes) {
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, maxBytes - total));
    const read = readSync(file.fd, chunk, 0, chunk.length, total);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
  }
  return Buffer.concat(chunks, total);
}

/** Replaces the whole content of an open file (truncate, then write from the start). */
export function replaceOpenFile(file: OpenFile, content: string | Buffer): number {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  ftruncateSync(file.fd, 0);
  writeAll(file.fd, bytes, 0);
  return bytes.length;
}

/** Appends to a file opened with mode "append". */
export function appendOpenFile(file: OpenFile, content: string): void {
  writeAll(file.fd, Buffer.from(content, "utf8"), null);
}

/** Removes the file `name` of an open directory (never a directory, never through a link). */
export function removeFile(dir: OpenDir, name: string): boolean {
  if (dir.readOnly) throw new PathRefusal(dir.shown, "is read-only for tools");
  const info = entryInfo(dir, name);
  if (!info) return false;
  if (info.isDirectory()) throw new PathRefusal(dir.shown, "is a directory");
  unlinkSync(`/proc/self/fd/${dir.fd}/${name}`);
  return true;
}

export function closeFile(file: OpenFile): void {
  closeSync(file.fd);
}

function writeAll(fd: number, bytes: Buffer, start: number | null): void {
  let done = 0;
  while (done < bytes.length) {
    done += writeSync(fd, bytes, done, bytes.length - done, start === null ? null : start + done);
  }
}

/** The descriptor of a directory entry, undefined when missing; a refusal when it is a link or a file. */
function openDirEntry(at: string, shown: string): number | undefined {
  try {
    return openSync(at, DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP" || code === "ENOTDIR") {
      const link = lstatOrUndefined(at)?.isSymbolicLink() ?? code === "ELOOP";
      throw new PathRefusal(
        shown,
        link ? "passes through a symlink; file tools do not follow links" : "passes through a file",
      );
    }
    throw error;
  }
}

function isReadOnly(fd: number, walked: string, dirs: ReadOnlyDirs | undefined): boolean {
  if (!dirs) return false;
  if (dirs.paths.includes(walked)) return true;
  if (dirs.ids.length === 0) return false;
  const info = fstatSync(fd);
  return dirs.ids.some((d) => d.dev === info.dev && d.ino === info.ino);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function close(fd: number): undefined {
  closeSync(fd);
  return undefined;
}
