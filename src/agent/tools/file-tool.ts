import { z } from "zod";
import {
  closeDir,
  closeFile,
  entryInfo,
  listDirectory,
  type OpenFile,
  openFile,
  readOpenFile,
  replaceOpenFile,
} from "../../core/index.js";
import { type PathPolicy, type PolicyPath, refusing } from "./path-policy.js";
import { defineTool, failed, ok } from "./tool-definition.js";

export interface FileToolLimits {
  /** Larger files are read up to this many bytes and marked as cut. */
  maxReadBytes: number;
  maxWriteBytes: number;
  maxListEntries: number;
}

const DEFAULT_LIMITS: FileToolLimits = {
  maxReadBytes: 256 * 1024,
  maxWriteBytes: 1024 * 1024,
  maxListEntries: 500,
};

const fileArgs = z
  .strictObject({
    action: z.enum(["read", "write", "list", "edit"]).describe("what to do"),
    path: z
      .string()
      .min(1)
      .describe("relative to the brain, or absolute inside an allowed root (/tmp/workspace)"),
    content: z.string().optional().describe("write: the whole new file content"),
    old_text: z.string().min(1).optional().describe("edit: text that occurs exactly once in the file"),
    new_text: z.string().optional().describe("edit: what replaces old_text"),
  })
  .superRefine((a, ctx) => {
    if (a.action === "write" && a.content === undefined) {
      ctx.addIssue({ code: "custom", path: ["content"], message: "is required for write" });
    }
    if (a.action === "edit") {
      if (a.old_text === undefined)
        ctx.addIssue({ code: "custom", path: ["old_text"], message: "is required for edit" });
      if (a.new_text === undefined)
        ctx.addIssue({ code: "custom", path: ["new_text"], message: "is required for edit" });
    }
  });

/**
 * Reads, writes, lists and edits files inside the path policy's roots. Every path is walked by descriptors
 * (never through a link) and the file is read or written through the descriptor that was checked.
 */
export function createFileTool(limits: Partial<FileToolLimits> = {}) {
  const max = { ...DEFAULT_LIMITS, ...limits };
  return defineTool({
    name: "file",
    description:
      "Read, write, list or edit files in the brain (markdown memory, instructions) and in /tmp/workspace. " +
      "Paths are relative to the brain unless absolute. edit replaces old_text, which must occur exactly once. " +
      "Symlinks are not followed.",
    parameters: fileArgs,
    async execute(args, { pathPolicy }) {
      const at = pathPolicy.locate(args.path);
      switch (args.action) {
        case "read":
          return readText(pathPolicy, at, max.maxReadBytes);
        case "list":
          return list(pathPolicy, at, max.maxListEntries);
        case "write": {
          const content = args.content ?? "";
          if (Buffer.byteLength(content) > max.maxWriteBytes) {
            return failed(`refusing to write more than ${max.maxWriteBytes} bytes`);
          }
          return write(pathPolicy, at, content);
        }
        case "edit":
          return edit(pathPolicy, at, args.old_text ?? "", args.new_text ?? "", max.maxWriteBytes);
      }
    },
  });
}

/**
 * Runs `work` on the file of a located path, opened in its parent directory without following a link; the
 * result of `missing` when the file or a directory on the way does not exist.
 */
function withFile<R>(
  policy: PathPolicy,
  at: PolicyPath,
  mode: "read" | "update" | "create",
  missing: () => R,
  work: (file: OpenFile) => R,
): R {
  const name = at.parts.at(-1);
  if (name === undefined) return failedAsDirectory(at) as R;
  const dir = policy.open(at, { depth: at.parts.length - 1, create: mode === "create" });
  if (!dir) return missing();
  try {
    if (entryInfo(dir, name)?.isDirectory()) return failedAsDirectory(at) as R;
    const file = refusing(() => openFile(dir, name, mode));
    if (!file) return missing();
    try {
      return work(file);
    } finally {
      closeFile(file);
    }
  } finally {
    closeDir(dir);
  }
}

function failedAsDirectory(at: PolicyPath) {
  return failed(`${at.shown} is a directory; use action list`);
}

function readText(policy: PathPolicy, at: PolicyPath, maxBytes: number) {
  return withFile(
    policy,
    at,
    "read",
    () => failed(`${at.shown} does not exist`),
    (file) => {
      const bytes = readOpenFile(file, maxBytes);
      const size = file.info.size;
      if (bytes.includes(0)) return failed(`${at.shown} is a binary file (${size} bytes)`);
      const text = bytes.toString("utf8");
      return size > maxBytes ? ok(`${text}\n[cut: showing ${maxBytes} of ${size} bytes]`) : ok(text);
    },
  );
}

function write(policy: PathPolicy, at: PolicyPath, content: string) {
  return withFile(
    policy,
    at,
    "create",
    () => failed(`${at.shown} could not be created`),
    (file) => ok(`wrote ${replaceOpenFile(file, content)} bytes to ${at.shown}`),
  );
}

function list(policy: PathPolicy, at: PolicyPath, maxEntries: number) {
  const name = at.parts.at(-1);
  if (name !== undefined) {
    const parent = policy.open(at, { depth: at.parts.length - 1 });
    if (!parent) return failed(`${at.shown} does not exist`);
    try {
      const info = entryInfo(parent, name);
      if (!info) return failed(`${at.shown} does not exist`);
      if (!info.isDirectory() && !info.isSymbolicLink()) return failed(`${at.shown} is not a directory`);
    } finally {
      closeDir(parent);
    }
  }
  const dir = policy.open(at);
  if (!dir) return failed(`${at.shown} does not exist`);
  try {
    const entries = listDirectory(dir).sort((a, b) => a.name.localeCompare(b.name));
    const lines = entries
      .slice(0, maxEntries)
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name));
    if (entries.length > maxEntries) lines.push(`[${entries.length - maxEntries} more entries not shown]`);
    return ok(lines.length === 0 ? "(empty directory)" : lines.join("\n"));
  } finally {
    closeDir(dir);
  }
}

function edit(policy: PathPolicy, at: PolicyPath, oldText: string, newText: string, maxBytes: number) {
  return withFile(
    policy,
    at,
    "update",
    () => failed(`${at.shown} is not a file`),
    (file) => {
      if (file.info.size > maxBytes) return failed(`${at.shown} is over ${maxBytes} bytes; edit refused`);
      const text = readOpenFile(file, maxBytes + 1).toString("utf8");
      const count = text.split(oldText).length - 1;
      if (count === 0) return failed(`old_text does not occur in ${at.shown}`);
      if (count > 1)
        return failed(`old_text occurs ${count} times in ${at.shown}; include more context so it is unique`);
      const index = text.indexOf(oldText);
      replaceOpenFile(file, text.slice(0, index) + newText + text.slice(index + oldText.length));
      return ok(`edited ${at.shown}`);
    },
  );
}
