import { createHash } from "node:crypto";
import { read } from "node:fs";
import { promisify } from "node:util";
import { closeDir, closeFile, openDirectory, openFile } from "../../core/index.js";

/** Where seed 003 §5 puts a brain's one database. */
export const BRAIN_DATABASE = ["db", "ironclaw.db"] as const;

const readAt = promisify(read);
const CHUNK = 1024 * 1024;

/**
 * `sha256:<hex>` of the brain database file's bytes as they are on the host now, read without following a link;
 * of no bytes when the brain has no database yet. For a brain whose cell is stopped this is its serialized
 * snapshot (sqlite3_serialize returns the same pages); while a cell writes, only the cell can take a consistent
 * one, and should report it with the change. Read a chunk at a time, so a large database does not hold up the
 * warden's other work while it is hashed.
 */
export async function hashBrainDatabase(brainDir: string): Promise<string> {
  const hash = createHash("sha256");
  const dir = openDirectory(brainDir, [BRAIN_DATABASE[0]]);
  if (dir) {
    try {
      const file = openFile(dir, BRAIN_DATABASE[1], "read");
      if (file) {
        try {
          const chunk = Buffer.allocUnsafe(CHUNK);
          for (let at = 0; ; ) {
            const { bytesRead } = await readAt(file.fd, chunk, 0, CHUNK, at);
            if (bytesRead === 0) break;
            hash.update(chunk.subarray(0, bytesRead));
            at += bytesRead;
          }
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
