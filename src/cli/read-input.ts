import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";

/** Reads a file's text, or all of stdin for `-`. */
export async function readInput(source: string, stdin: Readable): Promise<string> {
  if (source !== "-") return readFile(source, "utf8");
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
