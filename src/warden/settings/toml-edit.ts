import type { SettingValue } from "../../contracts/index.js";
import { InvalidInputError, tomlValue } from "../../core/index.js";

// A change to ironclawd.toml (or an agent profile) is written into the file's own text, line by line, so the person's comments, order
// and layout stay as they were and the diff they confirm shows only what changes. The caller checks afterwards
// that the edited text parses to exactly the old settings plus this change (config-change.ts); a layout this
// editor cannot place a key in (an inline table, a dotted key, a value over several lines) is refused there.

/**
 * `pricing.local."llama3.1".input` → `["pricing", "local", "llama3.1", "input"]`. ironclawd.toml has no key
 * outside a table (`minimum` 2); a profile's `model` is one key alone.
 */
export function settingSegments(path: string, minimum = 2): string[] {
  const segments: string[] = [];
  const token = /(?:^|\.)(?:([A-Za-z0-9_-]+)|"([^"\\\n\r]+)")/gy;
  let at = 0;
  while (at < path.length) {
    token.lastIndex = at;
    const match = token.exec(path);
    if (!match || (at === 0 && match[0].startsWith("."))) break;
    segments.push(match[1] ?? match[2] ?? "");
    at = token.lastIndex;
  }
  if (at !== path.length || segments.length < minimum)
    throw new InvalidInputError(
      path,
      minimum > 1
        ? "must be a table and a key joined by dots, like server.port"
        : "must be keys joined by dots",
    );
  return segments;
}

/** A key as TOML writes it: bare where it can be, quoted otherwise. */
export function tomlKey(segment: string): string {
  return /^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment);
}

/** `[a.b]` (not `[[a.b]]`), with any spacing and a trailing comment: the table's name, spaces dropped. */
function headerOf(line: string, commented: boolean): string | undefined {
  const pattern = commented ? /^\s*#\s*\[([^[\]]+)\]\s*(?:#.*)?$/ : /^\s*\[([^[\]]+)\]\s*(?:#.*)?$/;
  const match = pattern.exec(line);
  return match?.[1]
    ?.split(".")
    .map((s) => s.trim())
    .join(".");
}

function isAnyHeader(line: string): boolean {
  return /^\s*(?:#\s*)?\[/.test(line);
}

function keyPattern(key: string, commented: boolean): RegExp {
  const escaped = tomlKey(key).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const bare = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\s*${commented ? "#\\s*" : ""}(?:${escaped}|"${bare}")\\s*=`);
}

function findIndex(lines: string[], from: number, to: number, test: (line: string) => boolean): number {
  for (let i = from; i < to; i++) if (test(lines[i] ?? "")) return i;
  return -1;
}

/**
 * The text with one key set (or removed, for null) in its table. An assignment already there is replaced in
 * place; a new one goes under the commented-out line that documents the key (the starter file has one for every
 * key), else right under the table's header; a table only present as a comment (`# [server]`) is opened there,
 * and one not present at all is added at the end.
 */
export function setTomlKey(
  text: string,
  segments: readonly string[],
  value: SettingValue,
  file = "ironclawd.toml",
): string {
  const path = segments.map(tomlKey).join(".");
  const table = segments.slice(0, -1).map(tomlKey).join(".");
  const key = segments.at(-1) ?? "";
  const line = value === null ? "" : `${tomlKey(key)} = ${tomlValue(value)}`;
  const lines = text.split("\n");
  const absent = () => new InvalidInputError(path, `is not set in ${file}, so there is nothing to remove`);
  if (table === "") return setRootKey(lines, key, value, line, absent);
  const header = findIndex(lines, 0, lines.length, (l) => headerOf(l, false) === table);
  if (header >= 0) {
    const end = nextIndex(lines, header + 1, (l) => headerOf(l, false) !== undefined || /^\s*\[\[/.test(l));
    const set = findIndex(lines, header + 1, end, (l) => keyPattern(key, false).test(l));
    if (set >= 0) {
      if (value === null) lines.splice(set, 1);
      else lines[set] = line;
      return lines.join("\n");
    }
    if (value === null) throw absent();
    const documented = findIndex(lines, header + 1, end, (l) => keyPattern(key, true).test(l));
    lines.splice((documented >= 0 ? documented : header) + 1, 0, line);
    return lines.join("\n");
  }
  if (value === null) throw absent();
  const commented = findIndex(lines, 0, lines.length, (l) => headerOf(l, true) === table);
  if (commented >= 0) {
    lines[commented] = `[${table}]`;
    const end = nextIndex(lines, commented + 1, isAnyHeader);
    const documented = findIndex(lines, commented + 1, end, (l) => keyPattern(key, true).test(l));
    lines.splice((documented >= 0 ? documented : commented) + 1, 0, line);
    return lines.join("\n");
  }
  const body = text.replace(/\n*$/, "");
  return `${body}${body === "" ? "" : "\n\n"}[${table}]\n${line}\n`;
}

/**
 * A key outside every table (a profile's `model`): the lines before the first table header. A new one goes
 * under the line that documents it, else after the last key there, else before the first header.
 */
function setRootKey(
  lines: string[],
  key: string,
  value: SettingValue,
  line: string,
  absent: () => InvalidInputError,
): string {
  const end = nextIndex(lines, 0, (l) => /^\s*\[/.test(l));
  const set = findIndex(lines, 0, end, (l) => keyPattern(key, false).test(l));
  if (set >= 0) {
    if (value === null) lines.splice(set, 1);
    else lines[set] = line;
    return lines.join("\n");
  }
  if (value === null) throw absent();
  let at = findIndex(lines, 0, end, (l) => keyPattern(key, true).test(l));
  if (at < 0) for (let i = 0; i < end; i++) if (/^\s*[^#\s]/.test(lines[i] ?? "")) at = i;
  if (at < 0 && end < lines.length) {
    lines.splice(end, 0, line, "");
    return lines.join("\n");
  }
  lines.splice(at + 1, 0, line);
  return lines.join("\n");
}

function nextIndex(lines: string[], from: number, test: (line: string) => boolean): number {
  const found = findIndex(lines, from, lines.length, test);
  return found < 0 ? lines.length : found;
}
