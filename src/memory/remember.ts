import { readSync } from "node:fs";
import { join } from "node:path";
import {
  appendOpenFile,
  closeDir,
  closeFile,
  InvalidInputError,
  identityOf,
  openDirectory,
  openFile,
  pathComponents,
  type ReadOnlyDirs,
} from "../core/index.js";
import { BRAIN_PATHS, type BrainLayout } from "./brain-layout.js";

/** `log`: the append-only daily stream (default). `memory`: durable facts, consolidated long-term memory. */
export type RememberTarget = "log" | "memory";

export interface RememberOptions {
  target?: RememberTarget;
  /** Heading of the entry; defaults to the time. */
  title?: string;
  now?: Date;
}

export interface Remembered {
  path: string;
  /** Lines of the appended entry, 1-based inclusive. */
  startLine: number;
  endLine: number;
}

export const MAX_REMEMBER_BYTES = 32 * 1024;

/**
 * Appends an entry to the daily log (`logs/YYYY-MM-DD.md`) or to `memory.md`, as its own `##` section so it
 * becomes its own chunk and never changes the ids of earlier entries. Headings inside the text are turned into
 * bold lines: remembered text must not be able to re-parent the sections that follow it.
 */
export async function appendEntry(
  brain: BrainLayout,
  text: string,
  options: RememberOptions = {},
): Promise<Remembered> {
  const body = checkText(text);
  const now = options.now ?? new Date();
  const stamp = now.toISOString();
  const target = options.target ?? "log";
  if (target !== "log" && target !== "memory") throw new InvalidInputError("target", "must be log or memory");
  const path = target === "log" ? brain.dailyLogPath(now) : BRAIN_PATHS.memory;
  const title =
    options.title?.replace(/\s+/g, " ").trim() || `${stamp.slice(0, 10)} ${stamp.slice(11, 19)} UTC`;
  const header = target === "log" ? `# ${stamp.slice(0, 10)}\n` : "# Memory\n";
  return appendSection(brain, path, header, `## ${title}\n\n${body}\n`);
}

/**
 * Appends a `##` section to a brain file, creating it with `header` when it does not exist yet. The file is
 * reached by descriptors without following a link (a tool may have swapped `memory.md` or `logs/` for a link to
 * `config/` or out of the brain) and is never one in `config/` or `db/`; its lines are counted on the same
 * descriptor the entry is appended to.
 */
export async function appendSection(
  brain: BrainLayout,
  path: string,
  header: string,
  section: string,
): Promise<Remembered> {
  brain.resolve(path);
  const parts = pathComponents(path);
  const name = parts.pop() as string;
  const readOnly: ReadOnlyDirs = {
    ids: [BRAIN_PATHS.config, BRAIN_PATHS.db]
      .map((d) => identityOf(join(brain.root, d)))
      .filter((id) => id !== undefined),
    paths: [BRAIN_PATHS.config, BRAIN_PATHS.db],
  };
  const dir = openDirectory(brain.root, parts, { create: true, readOnly, shown: path });
  if (!dir) throw new InvalidInputError("path", `${path}: its folder could not be created`);
  try {
    const file = openFile(dir, name, "append");
    if (!file) throw new InvalidInputError("path", `${path} could not be created`);
    try {
      let prefix = file.info.size > 0 ? "" : `${header}\n`;
      // After the append the file ends with a newline, so its line count is its newline count.
      let newlines = 0;
      if (file.info.size > 0) {
        const content = countNewlines(file.fd);
        newlines = content.newlines;
        prefix = content.endsWithNewline ? "\n" : "\n\n";
      }
      const entry = `${prefix}${section}`;
      appendOpenFile(file, entry);
      const sectionLines = section.split("\n").length - 1;
      const endLine = newlines + entry.split("\n").length - 1;
      return { path, startLine: endLine - sectionLines + 1, endLine };
    } finally {
      closeFile(file);
    }
  } finally {
    closeDir(dir);
  }
}

function checkText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new InvalidInputError("text", "must not be empty");
  if (Buffer.byteLength(trimmed) > MAX_REMEMBER_BYTES) {
    throw new InvalidInputError("text", `must be at most ${MAX_REMEMBER_BYTES} bytes`);
  }
  if (trimmed.includes("\u0000")) throw new InvalidInputError("text", "must not contain NUL characters");
  return trimmed.replace(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm, "**$1**");
}

function countNewlines(fd: number): { newlines: number; endsWithNewline: boolean } {
  let lines = 0;
  let last = 0;
  let position = 0;
  const buffer = Buffer.alloc(1 << 16);
  for (;;) {
    const bytesRead = readSync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    for (let i = 0; i < bytesRead; i++) if (buffer[i] === 10) lines++;
    last = buffer[bytesRead - 1] as number;
  }
  return { newlines: lines, endsWithNewline: last === 10 };
}
