import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { BrainStateAnswer, BrainStateFile } from "../contracts/cell/index.js";
import { MAX_BRAIN_STATE_FILES } from "../contracts/cell/index.js";
import {
  closeDir,
  closeFile,
  InvalidInputError,
  listDirectory,
  openDirectory,
  openFile,
  readOpenFile,
} from "../core/index.js";

/** The host's history keeps no larger file (src/attest/history/brain-tree.ts): hashing past it is no use. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const MAX_DEPTH = 64;

/**
 * The brain's state as its history records it, for a host that cannot read the brain (a disk image only this
 * cell mounts): every regular `*.md` file outside `db/` and `.git` by path, hash and size — walked by
 * descriptors, never through a link, the set the host reads of a brain directory — and the sha256 of the
 * database's serialized snapshot, which only the cell that owns the database can take consistently.
 */
export function reportBrainState(brainRoot: string): BrainStateAnswer {
  const files: BrainStateFile[] = [];
  const walk = (parts: string[]): void => {
    if (parts.length > MAX_DEPTH)
      throw new InvalidInputError(
        "brain_state",
        `${parts.join("/")} is deeper than ${MAX_DEPTH} directories`,
      );
    const dir = openDirectory(brainRoot, parts);
    if (!dir) return; // removed meanwhile
    try {
      for (const entry of listDirectory(dir)) {
        if (entry.name.toLowerCase() === ".git") continue;
        if (entry.isDirectory()) {
          if (parts.length === 0 && entry.name === "db") continue;
          walk([...parts, entry.name]);
          continue;
        }
        if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
        const file = openFile(dir, entry.name, "read");
        if (!file) continue;
        try {
          if (file.info.size > MAX_FILE_BYTES)
            throw new InvalidInputError("brain_state", `${entry.name} is over ${MAX_FILE_BYTES} bytes`);
          const bytes = readOpenFile(file, MAX_FILE_BYTES);
          const path = [...parts, entry.name].join("/");
          files.push({
            path,
            sha256: createHash("sha256").update(bytes).digest("hex"),
            size_bytes: bytes.length,
          });
        } finally {
          closeFile(file);
        }
        if (files.length > MAX_BRAIN_STATE_FILES)
          throw new InvalidInputError(
            "brain_state",
            `the brain holds more than ${MAX_BRAIN_STATE_FILES} markdown files`,
          );
      }
    } finally {
      closeDir(dir);
    }
  };
  walk([]);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { kind: "brain_state", files, db_snapshot_sha256: databaseDigest(brainRoot) };
}

/**
 * `sha256:<hex>` of the brain database's serialized snapshot (seed 002 §1 `sqlite-serialized`): through a
 * read-only connection of its own, so it includes what the write-ahead log holds; of no bytes without a database.
 */
function databaseDigest(brainRoot: string): string {
  const hash = createHash("sha256");
  const file = join(brainRoot, "db", "ironclaw.db");
  if (existsSync(file)) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      hash.update(db.serialize());
    } finally {
      db.close();
    }
  }
  return `sha256:${hash.digest("hex")}`;
}
