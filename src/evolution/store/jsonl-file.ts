import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
} from "node:fs";
import { IronclawError } from "../../core/index.js";

/** What one read of a JSONL file from an offset found. */
export interface JsonlChunk {
  /** Each complete line from the offset on, decoded. */
  values: unknown[];
  /** The offset just past the last complete line: where the next read starts. */
  end: number;
  /** Bytes after the last newline: a line a writer was cut off in the middle of (or is still writing). */
  tornBytes: number;
}

/**
 * Reads the complete lines of a JSONL file from `offset`. Every line is written by one write ending in "\n", so a
 * line without its newline can only be the last, left by a writer that died mid-write; it is reported, not read.
 * A complete line that is not JSON is damage no crash of ours leaves, so it stops the read with the line named.
 */
export function readJsonlFrom(path: string, offset: number): JsonlChunk {
  if (!existsSync(path)) return { values: [], end: offset, tornBytes: 0 };
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { values: [], end: offset, tornBytes: 0 };
    const bytes = Buffer.alloc(size - offset);
    let read = 0;
    while (read < bytes.length) read += readSync(fd, bytes, read, bytes.length - read, offset + read);
    const lastNewline = bytes.lastIndexOf(0x0a);
    const complete = lastNewline < 0 ? 0 : lastNewline + 1;
    const values: unknown[] = [];
    let start = 0;
    while (start < complete) {
      const stop = bytes.indexOf(0x0a, start);
      const line = bytes.subarray(start, stop).toString("utf8");
      try {
        values.push(JSON.parse(line));
      } catch (cause) {
        throw new IronclawError(
          "internal",
          `${path}: the line at byte ${offset + start} is not JSON; the file is damaged`,
          { cause },
        );
      }
      start = stop + 1;
    }
    return { values, end: offset + complete, tornBytes: bytes.length - complete };
  } finally {
    closeSync(fd);
  }
}

/** Cuts a file back to `length`, dropping a torn last line, and makes the cut durable. */
export function truncateFile(path: string, length: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Where appended lines landed: the file's length before them and after. */
export interface AppendedSpan {
  start: number;
  end: number;
}

/**
 * Appends lines, one write each (the line and its newline together, so a crash leaves at most one torn line, the
 * last), then fsyncs before returning: what an ingest acknowledges is on disk. Returns the byte span they took,
 * so a caller holding the writer lock can take what it wrote as read without reading it back.
 */
export function appendLines(path: string, lines: readonly string[]): AppendedSpan {
  const fd = openSync(path, "a");
  try {
    const start = fstatSync(fd).size;
    let end = start;
    if (lines.length === 0) return { start, end };
    for (const line of lines) {
      const bytes = Buffer.from(`${line}\n`, "utf8");
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      end += bytes.length;
    }
    fsyncSync(fd);
    return { start, end };
  } finally {
    closeSync(fd);
  }
}
