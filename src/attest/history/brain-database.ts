import { createHash } from "node:crypto";
import { readSync } from "node:fs";
import { closeDir, closeFile, openDirectory, openFile } from "../../core/index.js";

/** Where seed 003 §5 puts a brain's one database. */
export const BRAIN_DATABASE = ["db", "ironclaw.db"] as const;

/**
 * `sha256:<hex>` of the brain database file's bytes as they are on the host now, read without following a link;
 * of no bytes when the brain has no database yet. For a brain whose cell is stopped this is its serialized
 * snapshot (sqlite3_serialize returns the same pages); while a cell writes, only the cell can take a consistent
 * one, and should report it with the change.
 */
export function hashBrainDatabase(brainDir: string): string {
  const hash = createHash("sha256");
  const dir = openDirectory(brainDir, [BRAIN_DATABASE[0]]);
  if (dir) {
    try {
      const file = openFile(dir, BRAIN_DATABASE[1], "read");
      if (file) {
        try {
          const chunk = Buffer.allocUnsafe(1024 * 1024);
          for (let at = 0; ; ) {
            const read = readSync(file.fd, chunk, 0, chunk.length, at);
            if (read === 0) break;
            hash.update(chunk.subarray(0, read));
            at += read;
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
