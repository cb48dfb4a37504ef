import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { ConflictError, sha256Hex } from "../../core/index.js";
import { BrainFileRefusal, DIR_FLAGS } from "../brain-file-access.js";

// Forgetting rewrites files of a brain that a guest can write, possibly from the host (the CLI), so nothing
// here follows a symlink: every directory is opened with O_NOFOLLOW inside the one opened before it, the file is
// read and checked on its descriptor, and the new text replaces it by a rename inside that same directory.

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface PlainFile {
  text: string;
  /** sha256 of the bytes read, to check nothing changed before they are replaced. */
  hash: string;
}

/**
 * The text of a regular file at a brain-relative path, reached without following any link; undefined when it
 * is missing. A link or a special file is refused (a link's target is forgotten where it lies, if in the brain).
 */
export async function readPlainFile(
  root: string,
  path: string,
  maxBytes: number,
): Promise<PlainFile | undefined> {
  return inDirectory(root, path, async (dir, name) => {
    const handle = await openFile(`/proc/self/fd/${dir.fd}/${name}`, path);
    if (!handle) return undefined;
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new BrainFileRefusal(path, "is not a regular file");
      if (info.size > maxBytes) throw new BrainFileRefusal(path, `is larger than ${maxBytes} bytes`);
      const bytes = await handle.readFile();
      if (bytes.length > maxBytes) throw new BrainFileRefusal(path, `is larger than ${maxBytes} bytes`);
      return { text: bytes.toString("utf8"), hash: sha256Hex(bytes) };
    } finally {
      await handle.close();
    }
  });
}

/**
 * Replaces a brain file's text, atomically (a new file renamed over it, with the old one's mode and owner, so
 * a cell running as its own uid can still append to it). Refuses with a ConflictError when the file no longer
 * holds what was planned on (`expectedHash`): someone wrote to it meanwhile, and their words must not be lost.
 */
export async function replacePlainFile(
  root: string,
  path: string,
  text: string,
  expectedHash: string,
): Promise<void> {
  await inDirectory(root, path, async (dir, name) => {
    const at = `/proc/self/fd/${dir.fd}/${name}`;
    const current = await openFile(at, path);
    if (!current) throw new ConflictError(`${path} was removed while it was being rewritten`);
    let info: Awaited<ReturnType<FileHandle["stat"]>>;
    try {
      info = await current.stat();
      if (!info.isFile()) throw new BrainFileRefusal(path, "is not a regular file");
      if (sha256Hex(await current.readFile()) !== expectedHash)
        throw new ConflictError(
          `${path} changed while it was being rewritten; nothing was changed, try again`,
        );
    } finally {
      await current.close();
    }
    const temp = `/proc/self/fd/${dir.fd}/.${name}.rewrite-${randomBytes(6).toString("hex")}`;
    const out = await open(temp, CREATE_FLAGS, info.mode & 0o777);
    try {
      await out.writeFile(text, "utf8");
      await out.chown(info.uid, info.gid).catch((error: NodeJS.ErrnoException) => {
        // Not root: the file is then ours, as the one it replaces was.
        if (error.code !== "EPERM") throw error;
      });
      await out.datasync();
    } catch (error) {
      await out.close();
      await rm(temp, { force: true });
      throw error;
    }
    await out.close();
    await rename(temp, at);
  });
}

async function openFile(at: string, path: string): Promise<FileHandle | undefined> {
  return open(at, READ_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    if (error.code === "ELOOP") throw new BrainFileRefusal(path, "is a symlink");
    if (error.code === "ENXIO") throw new BrainFileRefusal(path, "is not a regular file");
    throw error;
  });
}

/** Runs `work` with the file's directory opened component by component, never through a link. */
async function inDirectory<T>(
  root: string,
  path: string,
  work: (dir: FileHandle, name: string) => Promise<T>,
): Promise<T | undefined> {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const name = parts.pop();
  if (name === undefined || parts.includes("..") || name === "..")
    throw new BrainFileRefusal(path, "is not a file path inside the brain");
  let dir = await open(root, DIR_FLAGS);
  try {
    for (const part of parts) {
      const next = await open(`/proc/self/fd/${dir.fd}/${part}`, DIR_FLAGS).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return undefined;
          if (error.code === "ELOOP" || error.code === "ENOTDIR")
            throw new BrainFileRefusal(path, "passes through a symlink or a file");
          throw error;
        },
      );
      if (!next) return undefined;
      await dir.close();
      dir = next;
    }
    return await work(dir, name);
  } finally {
    await dir.close();
  }
}
