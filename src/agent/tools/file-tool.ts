import { mkdir, open, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
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

/** Reads, writes, lists and edits files inside the path policy's roots; every path goes through the policy. */
export function createFileTool(limits: Partial<FileToolLimits> = {}) {
  const max = { ...DEFAULT_LIMITS, ...limits };
  return defineTool({
    name: "file",
    description:
      "Read, write, list or edit files in the brain (markdown memory, instructions) and in /tmp/workspace. " +
      "Paths are relative to the brain unless absolute. edit replaces old_text, which must occur exactly once.",
    parameters: fileArgs,
    async execute(args, { pathPolicy }) {
      const writes = args.action === "write" || args.action === "edit";
      const path = pathPolicy.resolve(args.path, writes ? "write" : "read");
      const shown = pathPolicy.display(path);
      switch (args.action) {
        case "read":
          return readText(path, shown, max.maxReadBytes);
        case "list":
          return list(path, shown, max.maxListEntries);
        case "write": {
          const content = args.content ?? "";
          if (Buffer.byteLength(content) > max.maxWriteBytes) {
            return failed(`refusing to write more than ${max.maxWriteBytes} bytes`);
          }
          if ((await statOrUndefined(path))?.isDirectory()) return failed(`${shown} is a directory`);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, content);
          return ok(`wrote ${Buffer.byteLength(content)} bytes to ${shown}`);
        }
        case "edit":
          return edit(path, shown, args.old_text ?? "", args.new_text ?? "");
      }
    },
  });
}

async function readText(path: string, shown: string, maxBytes: number) {
  const info = await statOrUndefined(path);
  if (!info) return failed(`${shown} does not exist`);
  if (info.isDirectory()) return failed(`${shown} is a directory; use action list`);
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return failed(`${shown} is a binary file (${info.size} bytes)`);
    const text = bytes.toString("utf8");
    return info.size > maxBytes ? ok(`${text}\n[cut: showing ${maxBytes} of ${info.size} bytes]`) : ok(text);
  } finally {
    await handle.close();
  }
}

async function list(path: string, shown: string, maxEntries: number) {
  const info = await statOrUndefined(path);
  if (!info) return failed(`${shown} does not exist`);
  if (!info.isDirectory()) return failed(`${shown} is not a directory`);
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const lines = entries
    .slice(0, maxEntries)
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name));
  if (entries.length > maxEntries) lines.push(`[${entries.length - maxEntries} more entries not shown]`);
  return ok(lines.length === 0 ? "(empty directory)" : lines.join("\n"));
}

async function edit(path: string, shown: string, oldText: string, newText: string) {
  const info = await statOrUndefined(path);
  if (!info?.isFile()) return failed(`${shown} is not a file`);
  const text = await readFile(path, "utf8");
  const count = text.split(oldText).length - 1;
  if (count === 0) return failed(`old_text does not occur in ${shown}`);
  if (count > 1)
    return failed(`old_text occurs ${count} times in ${shown}; include more context so it is unique`);
  const at = text.indexOf(oldText);
  await writeFile(path, text.slice(0, at) + newText + text.slice(at + oldText.length));
  return ok(`edited ${shown}`);
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
