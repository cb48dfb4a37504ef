import { fchownSync, fstatSync } from "node:fs";
import {
  canonicalBytes,
  closeDir,
  closeFile,
  IronclawError,
  listDirectory,
  type OpenDir,
  openDirectory,
  openFile,
  pathComponents,
  readOpenFile,
  removeFile,
  replaceOpenFile,
  sha256Hex,
} from "../../core/index.js";

/**
 * A brain's markdown tree: every regular `*.md` file below the brain root, by its `/`-separated path, outside
 * `db/` (the database has its own snapshot hash) and never through a link. The brain is written by its cell, so
 * the walk opens each directory inside the one before it without following links (core's descriptor walk),
 * and bounds what it reads: a brain built to exhaust the host gets an error, not the host's memory.
 */
export type BrainTree = Map<string, Buffer>;

export const MAX_FILE_BYTES = 32 * 1024 * 1024;
export const MAX_TREE_BYTES = 512 * 1024 * 1024;
const MAX_DEPTH = 64;
export const MAX_FILES = 50_000;

export class BrainTreeError extends IronclawError {
  override readonly name = "BrainTreeError";
  constructor(message: string) {
    super("brain_tree_refused", message);
  }
}

/** Whether a brain path belongs to the markdown tree the history keeps. */
export function isHistoryPath(path: string): boolean {
  const parts = path.split("/");
  if (parts[0] === "db") return false;
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git")) return false;
  return path.endsWith(".md");
}

/** Reads the markdown tree of the brain at `root`, sorted by path. */
export function readBrainTree(root: string): BrainTree {
  const found: Array<[string, Buffer]> = [];
  let total = 0;
  const walk = (parts: string[]): void => {
    if (parts.length > MAX_DEPTH)
      throw new BrainTreeError(`${parts.join("/")}: deeper than ${MAX_DEPTH} directories`);
    const dir = openDirectory(root, parts);
    if (!dir) return; // removed meanwhile
    try {
      for (const entry of listDirectory(dir)) {
        const path = [...parts, entry.name].join("/");
        if (entry.isDirectory()) {
          if (parts.length === 0 && entry.name === "db") continue;
          if (entry.name.toLowerCase() === ".git") continue;
          walk([...parts, entry.name]);
        } else if (entry.isFile() && isHistoryPath(path)) {
          const content = readRegular(dir, entry.name, path);
          if (content === undefined) continue;
          if (found.length >= MAX_FILES)
            throw new BrainTreeError(`the markdown tree has more than ${MAX_FILES} files`);
          total += content.length;
          if (total > MAX_TREE_BYTES)
            throw new BrainTreeError(`the markdown tree passes ${MAX_TREE_BYTES} bytes`);
          found.push([path, content]);
        }
      }
    } finally {
      closeDir(dir);
    }
  };
  walk([]);
  return sortTree(found);
}

function readRegular(dir: OpenDir, name: string, path: string): Buffer | undefined {
  const file = openFile(dir, name, "read");
  if (!file) return undefined;
  try {
    if (file.info.size > MAX_FILE_BYTES)
      throw new BrainTreeError(`${path}: larger than ${MAX_FILE_BYTES} bytes`);
    return readOpenFile(file, MAX_FILE_BYTES);
  } finally {
    closeFile(file);
  }
}

export function sortTree(entries: Iterable<[string, Buffer]>): BrainTree {
  return new Map([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The content hash of a markdown tree, `sha256:<hex>`: sha256 of the canonical JSON (RFC 8785) of the sorted
 * list of `[path, sha256 hex of the file's bytes]` pairs. The same files give the same hash wherever they are.
 */
export function treeHash(tree: BrainTree): string {
  const pairs = [...sortTree(tree)].map(([path, content]) => [path, sha256Hex(content)]);
  return `sha256:${sha256Hex(canonicalBytes(pairs))}`;
}

/**
 * Makes the markdown tree at `root` equal to `tree`: writes every file whose bytes differ, removes markdown
 * files `tree` does not hold, leaves everything else (db/, config, other files) alone. A link where a file goes
 * is removed, never written through. Under a root warden new entries get the owner of the brain root, so the
 * cell that owns the brain can still write them.
 */
export function writeBrainTree(root: string, tree: BrainTree): { written: string[]; removed: string[] } {
  const current = readBrainTree(root);
  const written: string[] = [];
  const removed: string[] = [];
  const owner = rootOwner(root);
  for (const path of current.keys()) {
    if (tree.has(path)) continue;
    const parts = pathComponents(path);
    const dir = openDirectory(root, parts.slice(0, -1));
    if (!dir) continue;
    try {
      if (removeFile(dir, parts[parts.length - 1] as string)) removed.push(path);
    } finally {
      closeDir(dir);
    }
  }
  for (const [path, content] of tree) {
    if (!isHistoryPath(path)) throw new BrainTreeError(`${path}: not a markdown path the history keeps`);
    if (current.get(path)?.equals(content)) continue;
    writeOne(root, path, content, owner);
    written.push(path);
  }
  return { written, removed };
}

function writeOne(root: string, path: string, content: Buffer, owner: Owner | undefined): void {
  const parts = pathComponents(path);
  const name = parts[parts.length - 1] as string;
  let dir: OpenDir | undefined;
  // Directory by directory, so each one made here can be handed to the brain's owner.
  for (let depth = 1; depth < parts.length; depth++) {
    if (dir) closeDir(dir);
    dir = openDirectory(root, parts.slice(0, depth), { create: true, shown: path });
    if (dir && owner) fchownSync(dir.fd, owner.uid, owner.gid);
  }
  dir ??= openDirectory(root, [], { shown: path });
  if (!dir) throw new BrainTreeError(`${path}: its directory vanished while it was written`);
  try {
    const info = listDirectory(dir).find((e) => e.name === name);
    if (info && !info.isFile() && !info.isDirectory()) removeFile(dir, name);
    const file = openFile(dir, name, "create");
    if (!file) throw new BrainTreeError(`${path}: could not be created`);
    try {
      replaceOpenFile(file, content);
      if (owner) fchownSync(file.fd, owner.uid, owner.gid);
    } finally {
      closeFile(file);
    }
  } finally {
    closeDir(dir);
  }
}

interface Owner {
  uid: number;
  gid: number;
}

/** The brain root's owner when the host runs as root (and could otherwise leave root-owned files behind). */
function rootOwner(root: string): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = openDirectory(root, []);
  if (!dir) return undefined;
  try {
    const info = fstatSync(dir.fd);
    return { uid: info.uid, gid: info.gid };
  } finally {
    closeDir(dir);
  }
}
