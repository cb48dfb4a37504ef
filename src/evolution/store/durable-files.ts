import { closeSync, existsSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

/** Creates the empty files that are missing, and makes their names durable before any line is appended. */
export function createDurably(dir: string, names: readonly string[]): void {
  const missing = names.filter((name) => !existsSync(join(dir, name)));
  if (missing.length === 0) return;
  for (const name of missing) closeSync(openSync(join(dir, name), "a"));
  syncDirectory(dir);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a whole file so that a reader sees the old one or the new one, never part of it, and it survives a crash. */
export function writeDurably(path: string, bytes: Buffer): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  syncDirectory(dirname(path));
}
