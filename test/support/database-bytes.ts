import { readFileSync } from "node:fs";

/**
 * Every byte of an SQLite file and its write-ahead log, as latin1 text, to search for leftovers of deleted text
 * (a UTF-8 needle must be converted the same way: `Buffer.from(t, "utf8").toString("latin1")`).
 */
export function databaseBytes(file: string): string {
  let wal = Buffer.alloc(0);
  try {
    wal = readFileSync(`${file}-wal`);
  } catch {
    // No log: everything is in the file.
  }
  return Buffer.concat([readFileSync(file), wal]).toString("latin1");
}
