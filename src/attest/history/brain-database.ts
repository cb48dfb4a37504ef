import { createHash, type Hash } from "node:crypto";
import { read } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import {
  closeDir,
  closeFile,
  type OpenDir,
  type OpenFile,
  openDirectory,
  openFile,
  PathRefusal,
} from "../../core/index.js";

/** Where seed 003 §5 puts a brain's one database. */
export const BRAIN_DATABASE = ["db", "ironclaw.db"] as const;
const WAL = `${BRAIN_DATABASE[1]}-wal`;

const readAt = promisify(read);
const CHUNK = 1024 * 1024;

/**
 * `sha256:<hex>` of the brain database's serialized snapshot (seed 002 §1 `engine.kind: "sqlite-serialized"`):
 * the pages sqlite3_serialize gives, so the digest names the database's state whether or not its write-ahead log
 * has been checkpointed into the file yet; of no bytes when the brain has no database yet.
 * Without a write-ahead log to apply, the file's bytes are that serialization, and are hashed as they are. With
 * one, the log and then the file are copied, each read without following a link, into a private folder of the
 * host, and a read-only connection there serializes them: SQLite is never pointed at the brain's own folder,
 * where a cell could plant a `-shm` link for the host to write through. A brain whose cell is stopped gets its
 * exact state; while a cell writes, only the cell can take a consistent snapshot, and should report it with the
 * change. Hashed a chunk at a time, so a large database does not hold up the warden's other work.
 */
export async function hashBrainDatabase(brainDir: string): Promise<string> {
  const hash = createHash("sha256");
  const dir = openDirectory(brainDir, [BRAIN_DATABASE[0]]);
  if (dir) {
    try {
      const file = openFile(dir, BRAIN_DATABASE[1], "read");
      if (file) {
        try {
          const snapshot = await serializedWithLog(dir, file);
          if (snapshot) await hashChunks(hash, snapshot);
          else await hashFileBytes(hash, file);
        } finally {
          closeFile(file);
        }
      }
    } finally {
      closeDir(dir);
    }
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The serialized database with its log applied; undefined when there is no log, or SQLite cannot read them. */
async function serializedWithLog(dir: OpenDir, file: OpenFile): Promise<Buffer | undefined> {
  const wal = openLog(dir);
  if (wal === undefined) return undefined;
  const copy = await mkdtemp(join(tmpdir(), "ironclaw-brain-db-"));
  try {
    // The log first: a checkpoint between the two reads then finds its pages in the file as well, not lost.
    // Copied through the descriptors already opened (and checked), off the event loop.
    await copyFile(`/proc/self/fd/${wal.fd}`, join(copy, WAL));
    await copyFile(`/proc/self/fd/${file.fd}`, join(copy, BRAIN_DATABASE[1]));
    const db = new Database(join(copy, BRAIN_DATABASE[1]), { readonly: true, fileMustExist: true });
    try {
      return db.serialize();
    } finally {
      db.close();
    }
  } catch {
    // Not a database SQLite can read (a cell can write anything there): its bytes are what it is.
    return undefined;
  } finally {
    closeFile(wal);
    await rm(copy, { recursive: true, force: true });
  }
}

/** The write-ahead log when it holds anything; a link or other non-file in its place is no log of ours. */
function openLog(dir: OpenDir): OpenFile | undefined {
  let wal: OpenFile | undefined;
  try {
    wal = openFile(dir, WAL, "read");
  } catch (error) {
    if (error instanceof PathRefusal) return undefined;
    throw error;
  }
  if (wal !== undefined && wal.info.size === 0) {
    closeFile(wal);
    return undefined;
  }
  return wal;
}

async function hashChunks(hash: Hash, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; at += CHUNK) {
    hash.update(bytes.subarray(at, at + CHUNK));
    if (at + CHUNK < bytes.length) await yieldToLoop();
  }
}

async function hashFileBytes(hash: Hash, file: OpenFile): Promise<void> {
  const chunk = Buffer.allocUnsafe(CHUNK);
  for (let at = 0; ; ) {
    const { bytesRead } = await readAt(file.fd, chunk, 0, CHUNK, at);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
}
