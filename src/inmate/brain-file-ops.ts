import { realpath } from "node:fs/promises";
import { join } from "node:path";
import type { BrainEntry, FileOpRequest } from "../contracts/cell/index.js";
// core's descriptor walk by its file: an echo cell answers file operations, and core's index would bring the
// logger and pino to its start (INNER_IMPORTS in test/structure/house-rules.ts).
import {
  closeDir,
  closeFile,
  entryInfo,
  identityOf,
  listDirectory,
  type OpenDir,
  openDirectory,
  openFile,
  PathRefusal,
  pathComponents,
  type ReadOnlyDirs,
  readOpenFile,
  removeFile,
  replaceOpenFile,
} from "../core/descriptor-walk.js";
import type { FileOpOutcome } from "./cell-handler.js";

/** Read and write replies must fit one frame with room for the JSON escaping of the content. */
export const MAX_FILE_OP_BYTES = 384 * 1024;

/** The memory inspector edits text the agent reads: markdown, plus the TOML of config and cron. */
const WRITABLE = /\.(md|toml)$/;

/**
 * An order's tree, copied in and out by the host's worker: any file a repository holds may be written there, in
 * base64 when it is not text. Nothing in it grants the agent anything (config/ and db/ do).
 */
const WORK_DIR = "work";

type Refusal = { error: NonNullable<FileOpOutcome["error"]> };

/**
 * FileOpRequest against one brain root. Besides the contract's lexical checks (no absolute paths, no `..`),
 * every path is walked by descriptors, one component inside the one before it, following no symlink (the
 * agent's tools may flip one while a request runs), and the file is read or written through the descriptor that
 * was checked. The database folder is never written or deleted, because the index must only change through
 * the runtime.
 */
export async function runFileOp(brainRoot: string, request: FileOpRequest): Promise<FileOpOutcome> {
  const root = await realpath(brainRoot);
  if (request.path.startsWith("/"))
    return refuse("forbidden", `${request.path} must be relative to the brain`);
  let parts: string[];
  try {
    parts = pathComponents(request.path);
  } catch (error) {
    if (error instanceof PathRefusal) return refuse("forbidden", error.message);
    throw error;
  }
  const rel = parts.join("/");
  const inDb = parts[0] === "db";
  const inWork = parts[0] === WORK_DIR && parts.length > 1;
  const writable = !inDb && (inWork || WRITABLE.test(rel));
  const base64 = request.encoding === "base64";
  const readOnly: ReadOnlyDirs = {
    ids: [identityOf(join(root, "db"))].filter((id) => id !== undefined),
    paths: ["db"],
  };
  const walk = { readOnly, shown: request.path };
  try {
    switch (request.op) {
      case "list":
        return withDir(openDirectory(root, parts, walk), request.path, (dir) => ({
          entries: listDir(dir, rel, parts[0] === WORK_DIR),
        }));
      case "read":
        return inParent(root, parts, walk, false, (dir, name) => {
          const file = openFile(dir, name, "read");
          if (!file) return refuse("not_found", `${request.path} does not exist`);
          try {
            if (file.info.size > MAX_FILE_OP_BYTES)
              return refuse("too_large", `${request.path} is over ${MAX_FILE_OP_BYTES} bytes`);
            const bytes = readOpenFile(file, MAX_FILE_OP_BYTES + 1);
            if (bytes.length > MAX_FILE_OP_BYTES)
              return refuse("too_large", `${request.path} is over ${MAX_FILE_OP_BYTES} bytes`);
            return base64
              ? { content: bytes.toString("base64"), encoding: "base64" }
              : { content: bytes.toString("utf8") };
          } finally {
            closeFile(file);
          }
        });
      case "write": {
        if (!writable)
          return refuse(
            "forbidden",
            "only .md and .toml files outside db/, and files in work/, can be written",
          );
        const text = request.content ?? "";
        const content = base64 ? Buffer.from(text, "base64") : Buffer.from(text, "utf8");
        if (content.length > MAX_FILE_OP_BYTES)
          return refuse("too_large", `content is over ${MAX_FILE_OP_BYTES} bytes`);
        return inParent(root, parts, walk, true, (dir, name) => {
          const file = openFile(dir, name, "create");
          if (!file) return refuse("not_found", `${request.path} could not be created`);
          try {
            replaceOpenFile(file, content);
            return {};
          } finally {
            closeFile(file);
          }
        });
      }
      case "delete": {
        if (!writable)
          return refuse(
            "forbidden",
            "only .md and .toml files outside db/, and files in work/, can be deleted",
          );
        return inParent(root, parts, walk, false, (dir, name) =>
          removeFile(dir, name) ? {} : refuse("not_found", `${request.path} does not exist`),
        );
      }
    }
  } catch (error) {
    if (error instanceof PathRefusal) {
      return refuse(/is a directory/.test(error.rule) ? "not_found" : "forbidden", error.message);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return refuse("not_found", `${request.path} does not exist`);
    if (code === "EISDIR" || code === "ENOTDIR") return refuse("not_found", `${request.path}: ${code}`);
    return refuse("io_error", (error as Error).message.slice(0, 300));
  }
}

/** Runs `work` in the opened parent folder of a path with the file's name; not_found when the folder is not there. */
function inParent(
  root: string,
  parts: readonly string[],
  walk: { readOnly: ReadOnlyDirs; shown: string },
  create: boolean,
  work: (dir: OpenDir, name: string) => FileOpOutcome,
): FileOpOutcome {
  const name = parts.at(-1);
  if (name === undefined) return refuse("not_found", "the brain's root is not a file");
  return withDir(openDirectory(root, parts.slice(0, -1), { ...walk, create }), walk.shown, (dir) =>
    work(dir, name),
  );
}

function withDir(
  dir: OpenDir | undefined,
  path: string,
  work: (dir: OpenDir) => FileOpOutcome,
): FileOpOutcome {
  if (!dir) return refuse("not_found", `${path} does not exist`);
  try {
    return work(dir);
  } finally {
    closeDir(dir);
  }
}

/**
 * The entries of an opened folder; links and special files are left out, as are hidden entries. In an order's
 * tree (`work/`) every entry is listed, a link or special file by its kind, so that the host copying the tree out
 * sees what it skips (`.gitignore` is a file of the tree, `.git` one it refuses).
 */
function listDir(dir: OpenDir, rel: string, wholeTree: boolean): BrainEntry[] {
  const entries: BrainEntry[] = [];
  for (const entry of listDirectory(dir)) {
    if (!wholeTree && (entry.name.startsWith(".") || entry.name === "lost+found")) continue;
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) entries.push({ path, kind: "dir" });
    else if (entry.isFile()) {
      const info = entryInfo(dir, entry.name);
      if (!info?.isFile()) continue;
      entries.push({ path, kind: "file", size_bytes: info.size, modified_at: info.mtime.toISOString() });
    } else if (wholeTree) entries.push({ path, kind: entry.isSymbolicLink() ? "link" : "other" });
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function refuse(code: "not_found" | "forbidden" | "too_large" | "io_error", message: string): Refusal {
  return { error: { code, message } };
}
