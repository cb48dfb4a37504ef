import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
import type { z } from "zod";
import { ConfigError } from "./errors.js";
import { issuesFromZod } from "./zod-issues.js";

/** Parses TOML text and validates it against a schema; every problem names the file, line where known, key and rule. */
export function parseTomlConfig<S extends z.ZodType>(text: string, schema: S, file = "<input>"): z.output<S> {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (cause) {
    if (cause instanceof TomlError) {
      const rule = cause.message.split("\n")[0] ?? "invalid TOML";
      throw new ConfigError(file, [{ key: "(syntax)", rule, line: cause.line }], { cause });
    }
    throw cause;
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = issuesFromZod(result.error).map((issue) => {
    const key = issue.path === "$" ? "(root)" : issue.path.replace(/^\$\.?/, "");
    const line = findKeyLine(text, key);
    return line === undefined ? { key, rule: issue.message } : { key, rule: issue.message, line };
  });
  throw new ConfigError(file, problems, { cause: result.error });
}

/** Reads and validates a TOML config file. */
export function loadTomlConfig<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new ConfigError(file, [{ key: "(file)", rule: `cannot read: ${(cause as Error).message}` }], {
      cause,
    });
  }
  return parseTomlConfig(text, schema, file);
}

/**
 * Best-effort line of a dotted key such as `server.port` or `jobs[1].schedule`: finds the table header for the
 * leading segments, then the assignment of the last one. Returns undefined when the key is not written literally.
 */
export function findKeyLine(text: string, key: string): number | undefined {
  const segments = key.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== "");
  const lines = text.split(/\r?\n/);
  const names = segments.filter((s) => !/^\d+$/.test(s));
  const leaf = names.at(-1);
  if (leaf === undefined) return undefined;
  const tablePath = names.slice(0, -1).join(".");
  const arrayIndex = Number(segments.find((s) => /^\d+$/.test(s)) ?? -1);
  let inTable = tablePath === "";
  let seenArrayEntries = -1;
  for (const [i, line] of lines.entries()) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header) {
      const name = header[1];
      if (name === tablePath) {
        seenArrayEntries += line.trim().startsWith("[[") ? 1 : 0;
        inTable = arrayIndex < 0 || seenArrayEntries === arrayIndex;
      } else inTable = false;
      if (name === names.join(".")) return i + 1;
      continue;
    }
    if (inTable && new RegExp(`^\\s*"?${escapeRegExp(leaf)}"?\\s*=`).test(line)) return i + 1;
  }
  return undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
