import type { z } from "zod";
import {
  type ConfigKey,
  type ConfigMap,
  type ConfigNode,
  type ConfigTable,
  configKeyPaths,
  configTree,
} from "./config-schema-tree.js";

export interface TomlTemplateOptions {
  /** The file's opening comment, without the leading "# ". */
  header: string;
  /** What the file sets: written as live keys and tables. Everything else is shown commented out. */
  values?: Record<string, unknown>;
  /** Defaults applied by the code that reads the file rather than by the schema, by dotted key path. */
  defaults?: Record<string, unknown>;
}

const WIDTH = 110;

/**
 * A TOML config file that shows every key of its schema: each table and key with its description, every key
 * commented out at its default (or, with no default, at the schema's example, marked so), and the keys in
 * `values` written live. Written before any edit, it reads back as `values` plus the defaults.
 */
export function renderTomlTemplate(schema: z.ZodType, options: TomlTemplateOptions): string {
  const out = [...options.header.split("\n").map((line) => comment(line)), ""];
  const renderer = new Renderer(options.defaults ?? {}, out);
  renderer.table(configTree(schema), [], [], options.values ?? {});
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n")}\n`;
}

/**
 * The keys of a schema a TOML text does not show, live or commented, under the right table header. A map's
 * placeholder (`<name>`) stands for any entry name.
 */
export function missingTemplateKeys(schema: z.ZodType, text: string): string[] {
  const shown = keyLines(text);
  const matches = (wanted: string[], found: string[]) =>
    wanted.length === found.length && wanted.every((s, i) => /^<.*>$/.test(s) || s === found[i]);
  return configKeyPaths(schema).filter((path) => !shown.some((found) => matches(splitKey(path), found)));
}

/** Dotted paths of every `key = value` line of a TOML text, commented out or not, under its table header. */
export function templateKeyPaths(text: string): string[] {
  return keyLines(text).map((segments) => segments.map(bareOrQuoted).join("."));
}

function keyLines(text: string): string[][] {
  const paths: string[][] = [];
  let table: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const header = /^(?:# )?\[([^[\]]+)\]\s*(?:#.*)?$/.exec(line);
    if (header?.[1] !== undefined) {
      table = splitKey(header[1]);
      continue;
    }
    const key = /^(?:# )?([A-Za-z0-9_-]+|"[^"]*") = /.exec(line);
    if (key?.[1] !== undefined) paths.push([...table, unquote(key[1])]);
  }
  return paths;
}

function splitKey(key: string): string[] {
  return [...key.matchAll(/"([^"]*)"|([^.\s"]+)/g)].map((m) => m[1] ?? m[2] ?? "");
}

const unquote = (s: string) => (s.startsWith('"') ? s.slice(1, -1) : s);

class Renderer {
  constructor(
    private readonly defaults: Record<string, unknown>,
    private readonly out: string[],
  ) {}

  /**
   * A table: its header, its keys, then its tables and maps. The header is live only where the file sets a
   * key under it, so a table pasted at the end of the file never repeats one (TOML refuses a table defined
   * twice). `segments` are the header's parts as written, `path` the same parts for looking up defaults.
   */
  table(node: ConfigTable, segments: string[], path: string[], values: unknown, described = true): void {
    const given = isRecord(values) ? values : undefined;
    const live = given !== undefined;
    const keys = node.children.filter((c) => c.kind === "key" && !c.refused);
    if (segments.length > 0) {
      this.out.push("");
      if (described) this.describe(node);
      if (keys.length > 0) this.out.push(`${live ? "" : "# "}[${segments.join(".")}]`);
    }
    keys.forEach((key, i) => {
      if (key.kind !== "key") return;
      if (i > 0 && key.description !== undefined) this.out.push("");
      this.describe(key);
      this.out.push(this.keyLine(key, [...path, key.name], given?.[key.name]));
    });
    for (const child of node.children) {
      if (child.kind === "key") continue;
      const childSegments = [...segments, bareOrQuoted(child.name)];
      if (child.kind === "table")
        this.table(child, childSegments, [...path, child.name], given?.[child.name]);
      else this.map(child, childSegments, [...path, child.name], given?.[child.name]);
    }
  }

  /** A map of tables: the entries the file sets, else one commented entry under its placeholder, then examples. */
  private map(node: ConfigMap, segments: string[], path: string[], values: unknown): void {
    this.out.push("");
    this.describe(node);
    this.entries(node, segments, path, values);
    for (const example of node.examples) {
      if (!isRecord(example)) continue;
      this.out.push("", "# For example:");
      for (const [name, value] of Object.entries(example)) {
        this.example(node.entry, [...segments, bareOrQuoted(name)], value);
      }
    }
  }

  /** Each entry the file sets, or the placeholder entry (`[providers.<name>]`) commented out when it sets none. */
  private entries(node: ConfigMap, segments: string[], path: string[], values: unknown): void {
    const given = isRecord(values) ? Object.entries(values) : [];
    const shown: Array<[string, string, unknown]> =
      given.length > 0
        ? given.map(([name, value]) => [bareOrQuoted(name), name, value])
        : [[node.entry.name, "*", undefined]];
    for (const [segment, name, value] of shown) {
      if (node.entry.kind === "table") {
        this.table(node.entry, [...segments, segment], [...path, name], value, false);
      } else this.entries(node.entry, [...segments, segment], [...path, name], value);
    }
  }

  /** An example entry of a map, all commented out: only the keys the example gives. */
  private example(node: ConfigTable | ConfigMap, segments: string[], value: unknown): void {
    if (!isRecord(value)) return;
    if (node.kind === "map") {
      for (const [name, inner] of Object.entries(value))
        this.example(node.entry, [...segments, bareOrQuoted(name)], inner);
      return;
    }
    this.out.push(`# [${segments.join(".")}]`);
    for (const child of node.children) {
      if (child.kind === "key" && value[child.name] !== undefined) {
        this.out.push(`# ${bareOrQuoted(child.name)} = ${tomlValue(value[child.name])}`);
      }
    }
  }

  private keyLine(key: ConfigKey, path: string[], given: unknown): string {
    const name = bareOrQuoted(key.name);
    if (given !== undefined) return assignment(name, given, "");
    if (key.default !== undefined) return assignment(name, key.default.value, "# ");
    const readerDefault = this.defaults[path.join(".")];
    if (readerDefault !== undefined) return assignment(name, readerDefault, "# ");
    const mark = key.required ? "required" : "an example; unset by default";
    if (key.examples.length > 0) return `${assignment(name, key.examples[0], "# ")}   # ${mark}`;
    throw new TypeError(`renderTomlTemplate: ${path.join(".")} has no default and no example to show`);
  }

  private describe(node: ConfigNode): void {
    if (node.description !== undefined) this.out.push(...wrap(node.description).map((line) => comment(line)));
  }
}

/** `name = value`, an array that would not fit one line written one element a line. */
function assignment(name: string, value: unknown, prefix: string): string {
  const inline = `${prefix}${name} = ${tomlValue(value)}`;
  if (inline.length <= WIDTH || !Array.isArray(value)) return inline;
  const items = value.map((item) => `${prefix}  ${tomlValue(item)},`);
  return [`${prefix}${name} = [`, ...items, `${prefix}]`].join("\n");
}

function comment(line: string): string {
  return line === "" ? "#" : `# ${line}`;
}

function wrap(text: string): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > WIDTH - 2) {
        lines.push(line);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

function bareOrQuoted(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) || /^"?<.*>"?$/.test(key) ? key : JSON.stringify(key);
}

/** A value as TOML writes it; JSON's string escapes are TOML's basic-string escapes. */
export function tomlValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (isRecord(value)) {
    const fields = Object.entries(value).map(([k, v]) => `${bareOrQuoted(k)} = ${tomlValue(v)}`);
    return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
  }
  throw new TypeError(`tomlValue: cannot write ${typeof value} as TOML`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
