import type { CommandNode, LeafCommand, OptionSpec, PositionalSpec } from "./command-spec.js";
import { describeValue } from "./option-value.js";

/** The widest line help writes, wrapping where it must: the width of the project's source lines. */
const WIDTH = 110;

/** The full --help of the command at the end of `path` (path[0] is the top-level command). */
export function renderHelp(path: readonly CommandNode[]): string {
  const node = path.at(-1);
  if (!node) throw new Error("renderHelp needs a command");
  const lines = [...renderUsageLines(path), "", node.description ?? node.summary];
  if (node.kind === "group") {
    const rows = node.subcommands.map((c): [string, string] => [c.name, c.summary]);
    lines.push(
      "",
      "Subcommands:",
      ...renderTable(rows, Math.min(Math.max(...rows.map(([n]) => n.length)), 30) + 4),
    );
    lines.push("", `Run \`${invocation(path)} <subcommand> --help\` for its arguments and options.`);
    return lines.join("\n");
  }
  const args = node.positionals.map((p): [string, string] => [label(p), p.description]);
  const options = node.options.map((o): [string, string] => [optionLeft(o), optionText(o)]);
  options.push(["-h, --help", "show this help"]);
  // One column for both tables, so arguments and options read as one list.
  const column = Math.min(Math.max(...[...args, ...options].map(([left]) => left.length)), 30) + 4;
  if (args.length > 0) lines.push("", "Arguments:", ...renderTable(args, column));
  lines.push("", "Options:", ...renderTable(options, column));
  return lines.join("\n");
}

/**
 * `Usage: ironclaw user add <name> [--admin] [--json]`, one form per runnable command beneath `path`; a form
 * too long for one line continues under its first argument.
 */
export function renderUsageLines(path: readonly CommandNode[]): string[] {
  const forms = collectLeaves(path).flatMap((leafPath) => synopsis(leafPath));
  return forms.flatMap((form, i) => {
    const head = `${i === 0 ? "Usage: " : "       "}${form.command}`;
    const lines = [head];
    for (const part of form.parts) {
      const last = lines.length - 1;
      const line = lines[last] ?? "";
      if (line.length + 1 + part.length > WIDTH && line.trim() !== "")
        lines.push(`${" ".repeat(head.length)} ${part}`);
      else lines[last] = `${line} ${part}`;
    }
    return lines;
  });
}

function collectLeaves(path: readonly CommandNode[]): Array<readonly CommandNode[]> {
  const node = path.at(-1);
  if (!node) return [];
  if (node.kind === "leaf") return [path];
  return node.subcommands.flatMap((child) => collectLeaves([...path, child]));
}

/** The command, then required flags, arguments and optional flags; a standalone flag is a form of its own. */
function synopsis(path: readonly CommandNode[]): Array<{ command: string; parts: string[] }> {
  const leaf = path.at(-1) as LeafCommand;
  const required = leaf.options.filter((o) => o.required).map((o) => `--${o.name} ${describeValue(o)}`);
  const words = leaf.positionals.map((p) => {
    const shown = `${label(p)}${p.variadic ? "…" : ""}`;
    return p.required ? shown : `[${shown}]`;
  });
  const optional = leaf.options
    .filter((o) => !o.required && !o.standalone)
    .map((o) => `[--${o.name}${o.type === "boolean" ? "" : ` ${describeValue(o)}`}]`);
  const command = invocation(path);
  const alone = leaf.options.filter((o) => o.standalone).map((o) => ({ command, parts: [`--${o.name}`] }));
  return [{ command, parts: [...required, ...words, ...optional] }, ...alone];
}

function invocation(path: readonly CommandNode[]): string {
  return ["ironclaw", ...path.map((n) => n.name)].join(" ");
}

function label(positional: PositionalSpec): string {
  return `<${positional.valueName ?? positional.name}>`;
}

function optionLeft(option: OptionSpec): string {
  const value = describeValue(option);
  return `${option.short ? `-${option.short}, ` : "    "}--${option.name}${value ? ` ${value}` : ""}`;
}

/** The description, with what the declaration already says (required, default, repeatable) added once. */
function optionText(option: OptionSpec): string {
  const notes = [
    option.required ? "required" : "",
    describeRange(option),
    option.default === undefined ? "" : `default: ${option.default}`,
    option.type === "list" ? "repeat it, or separate values with commas" : "",
  ].filter(Boolean);
  return notes.length === 0 ? option.description : `${option.description} (${notes.join("; ")})`;
}

function describeRange({ min, max }: OptionSpec): string {
  if (min !== undefined && max !== undefined) return `${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  return max === undefined ? "" : `at most ${max}`;
}

/** Two aligned columns; a left side too wide for the column puts its description on the next line. */
function renderTable(rows: ReadonlyArray<readonly [string, string]>, column: number): string[] {
  const lines: string[] = [];
  for (const [left, text] of rows) {
    const wrapped = wrapText(text, WIDTH - column);
    const first = `  ${left}`;
    if (first.length + 2 > column) lines.push(first, ...wrapped.map((l) => `${" ".repeat(column)}${l}`));
    else
      lines.push(
        ...wrapped.map((l, i) => (i === 0 ? `${first.padEnd(column)}${l}` : `${" ".repeat(column)}${l}`)),
      );
  }
  return lines;
}

/** Breaks text at spaces to lines of at most `width`; line breaks written into the text are kept. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}
