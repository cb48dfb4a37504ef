import { mkdir, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { BrainEntry, FileOpRequest } from "../../contracts/cell/index.js";
import { isWithin, realpathOfDeepestExisting } from "../../core/index.js";
import type { FileOpOutcome } from "./cell-handler.js";

/** Read and write replies must fit one frame with room for the JSON escaping of the content. */
export const MAX_FILE_OP_BYTES = 384 * 1024;

/** The memory inspector edits text the agent reads: markdown, plus the TOML of config and cron. */
const WRITABLE = /\.(md|toml)$/;

type Refusal = { error: NonNullable<FileOpOutcome["error"]> };

/**
 * FileOpRequest against one brain root. Besides the contract's lexical checks (no absolute paths, no `..`),
 * every path is resolved through symlinks and refused when it lands outside the brain; the database folder
 * is never written or deleted, because the index must only change through the runtime.
 */
export async function runFileOp(brainRoot: string, request: FileOpRequest): Promise<FileOpOutcome> {
  const root = await realpath(brainRoot);
  const target = await locate(root, request.path);
  if ("error" in target) return target;
  const { absolute } = target;
  const rel = relative(root, absolute).split(sep).join("/");
  const inDb = rel === "db" || rel.startsWith("db/");
  try {
    switch (request.op) {
      case "list":
        return { entries: await listDir(root, absolute) };
      case "read": {
        const info = await stat(absolute);
        if (!info.isFile()) return refuse("not_found", `${request.path} is not a file`);
        if (info.size > MAX_FILE_OP_BYTES)
          return refuse("too_large", `${request.path} is over ${MAX_FILE_OP_BYTES} bytes`);
        return { content: await readFile(absolute, "utf8") };
      }
      case "write": {
        if (inDb || !WRITABLE.test(rel))
          return refuse("forbidden", "only .md and .toml files outside db/ can be written");
        const content = request.content ?? "";
        if (Buffer.byteLength(content) > MAX_FILE_OP_BYTES)
          return refuse("too_large", `content is over ${MAX_FILE_OP_BYTES} bytes`);
        await mkdir(dirname(absolute), { recursive: true });
        await writeFile(absolute, content);
        return {};
      }
      case "delete": {
        if (inDb || !WRITABLE.test(rel))
          return refuse("forbidden", "only .md and .toml files outside db/ can be deleted");
        await rm(absolute);
        return {};
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return refuse("not_found", `${request.path} does not exist`);
    if (code === "EISDIR" || code === "ENOTDIR") return refuse("not_found", `${request.path}: ${code}`);
    return refuse("io_error", (error as Error).message.slice(0, 300));
  }
}

/** The absolute path, after following every symlink on the way, dangling ones included. */
async function locate(root: string, path: string): Promise<{ absolute: string } | Refusal> {
  const absolute = resolve(root, path);
  if (!isWithin(root, absolute)) return refuse("forbidden", `${path} escapes the brain`);
  let real: string;
  try {
    real = realpathOfDeepestExisting(absolute);
  } catch {
    return refuse("forbidden", `${path} cannot be resolved`);
  }
  if (!isWithin(root, real)) return refuse("forbidden", `${path} leads outside the brain through a symlink`);
  return { absolute: real };
}

async function listDir(root: string, dir: string): Promise<BrainEntry[]> {
  const entries: BrainEntry[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "lost+found") continue;
    const absolute = join(dir, entry.name);
    const path = relative(root, absolute).split(sep).join("/");
    if (entry.isDirectory()) entries.push({ path, kind: "dir" });
    else if (entry.isFile()) {
      const info = await stat(absolute);
      entries.push({ path, kind: "file", size_bytes: info.size, modified_at: info.mtime.toISOString() });
    }
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function refuse(code: "not_found" | "forbidden" | "too_large" | "io_error", message: string): Refusal {
  return { error: { code, message } };
}
