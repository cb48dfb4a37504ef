import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { canonicalJson } from "../../core/index.js";
import { writeDurably } from "../store/index.js";

/** JSON files are canonical JSON plus a newline, so the same content is always the same bytes. */
export function reportJson(value: unknown): string {
  return `${canonicalJson(value)}\n`;
}

/**
 * Writes a report whole or not at all: a temporary file, fsynced, renamed over the old one, then the directory
 * fsynced. A reader (or a replay after a crash) never sees half a report, and a latest_* alias written after its
 * session's files never names evidence that is not there yet.
 */
export function writeReportFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeDurably(path, Buffer.from(text, "utf8"));
}
