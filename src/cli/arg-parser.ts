import { findClosestName } from "./closest-name.js";
import { UsageError } from "./command.js";
import type { CommandGroup, CommandNode, LeafCommand, OptionSpec, PositionalSpec } from "./command-spec.js";
import { convertFlagText, convertOptionText, describeValue, looksLikeOption } from "./option-value.js";

export type ParseResult =
  | { kind: "help"; path: CommandNode[] }
  | {
      kind: "run";
      path: CommandNode[];
      leaf: LeafCommand;
      options: Record<string, unknown>;
      args: Record<string, unknown>;
    };

const HELP = new Set(["--help", "-h"]);

/**
 * Reads `argv` (what follows the command's own name) against a declared command: picks subcommands, checks
 * every option and argument, and returns typed values, or that help was asked for. Throws UsageError.
 */
export function parseCommandLine(command: CommandNode, argv: readonly string[]): ParseResult {
  const path: CommandNode[] = [command];
  let node = command;
  let rest = argv;
  while (node.kind === "group") {
    const step = pickSubcommand(node, rest, path);
    if (step === "help") return { kind: "help", path };
    node = step.child;
    path.push(node);
    rest = step.rest;
  }
  return parseLeaf(node, rest, path);
}

/**
 * Finds the subcommand's name. Flags may come before it (`ironclaw budget --json show`): they, and a word
 * right after such a flag (its value, perhaps), are handed on to the subcommand, which knows its options.
 */
function pickSubcommand(
  group: CommandGroup,
  argv: readonly string[],
  path: CommandNode[],
): "help" | { child: CommandNode; rest: string[] } {
  const names = group.subcommands.map((c) => c.name);
  // After `--` every word is an argument, never a subcommand's name.
  const end = argv.indexOf("--");
  const head = end === -1 ? argv : argv.slice(0, end);
  let unknown: string | undefined;
  for (const [i, token] of head.entries()) {
    if (HELP.has(token)) return "help";
    const child = group.subcommands.find((c) => c.name === token);
    if (child) return { child, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    const previous = head[i - 1];
    const aValue = previous !== undefined && looksLikeOption(previous) && !previous.includes("=");
    if (!looksLikeOption(token) && !aValue) {
      unknown = token;
      break;
    }
  }
  unknown ??= head.find((t) => !looksLikeOption(t));
  const fallback = group.subcommands.find((c) => c.name === group.fallback);
  if (fallback && argv.length > 0) return { child: fallback, rest: [...argv] };
  if (unknown === undefined) throw usage(`missing subcommand: ${listChoices(names)}`, path);
  const guess = findClosestName(unknown, names);
  throw usage(`unknown subcommand '${unknown}'${guess ? ` (did you mean ${guess}?)` : ""}`, path);
}

function parseLeaf(leaf: LeafCommand, argv: readonly string[], path: CommandNode[]): ParseResult {
  // --help wins wherever it stands before `--`, so a half-typed command line still gets its help.
  const end = argv.indexOf("--");
  if ((end === -1 ? argv : argv.slice(0, end)).some((t) => HELP.has(t))) return { kind: "help", path };
  const options: Record<string, unknown> = {};
  const words: string[] = [];
  let standalone = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? "";
    if (token === "--") {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (!looksLikeOption(token)) {
      words.push(token);
      continue;
    }
    const { option, inline } = findOption(leaf, token, path);
    const flag = `--${option.name}`;
    if (option.type === "boolean") {
      const parsed = inline === undefined ? { value: true } : convertFlagText(inline);
      if ("rule" in parsed) throw valueError(`${flag}: ${parsed.rule}`, path);
      options[option.name] = parsed.value;
    } else {
      let text = inline;
      if (text === undefined) {
        const next = argv[i + 1];
        if (next === undefined || next === "--" || looksLikeOption(next))
          throw valueError(`${flag}: expected ${describeValue(option)} after it`, path);
        text = next;
        i++;
      }
      const converted = convertOptionText(option, text);
      if ("rule" in converted) throw valueError(`${flag}: ${converted.rule}`, path);
      const { value } = converted;
      options[option.name] = Array.isArray(value)
        ? [...((options[option.name] as string[] | undefined) ?? []), ...value]
        : value;
    }
    if (option.standalone) standalone = true;
  }
  for (const option of leaf.options) {
    if (options[option.name] !== undefined) continue;
    if (option.type === "boolean") options[option.name] = false;
    else if (option.type === "list") options[option.name] = [];
    else if (option.default !== undefined) options[option.name] = option.default;
    else if (option.required && !standalone)
      throw usage(`missing --${option.name} ${describeValue(option)}`.trimEnd(), path);
  }
  return { kind: "run", path, leaf, options, args: assignWords(leaf.positionals, words, standalone, path) };
}

/** `--name`, `--name=value` or `-n`; an unknown one is named with the closest declared flag. */
function findOption(
  leaf: LeafCommand,
  token: string,
  path: CommandNode[],
): { option: OptionSpec; inline: string | undefined } {
  if (token.startsWith("--")) {
    const equals = token.indexOf("=");
    const name = equals === -1 ? token.slice(2) : token.slice(2, equals);
    const option = leaf.options.find((o) => o.name === name);
    if (option) return { option, inline: equals === -1 ? undefined : token.slice(equals + 1) };
  } else {
    const option = leaf.options.find((o) => o.short !== undefined && `-${o.short}` === token);
    if (option) return { option, inline: undefined };
  }
  const typed = token.split("=")[0] ?? token;
  const guess = findClosestName(
    typed.replace(/^-+/, ""),
    leaf.options.map((o) => o.name),
  );
  throw usage(`unknown option ${typed}${guess ? ` (did you mean --${guess}?)` : ""}`, path);
}

function assignWords(
  positionals: readonly PositionalSpec[],
  words: string[],
  standalone: boolean,
  path: CommandNode[],
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  let next = 0;
  for (const positional of positionals) {
    const missing = positional.required && !standalone && next >= words.length;
    if (missing) throw usage(`missing <${positional.valueName ?? positional.name}>`, path);
    if (positional.variadic) {
      args[positional.name] = words.slice(next);
      next = words.length;
    } else {
      args[positional.name] = words[next];
      next++;
    }
  }
  const extra = words[next];
  if (extra !== undefined && !standalone) throw usage(`unexpected argument '${extra}'`, path);
  return args;
}

/** `a, b or c`. */
export function listChoices(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

function usage(message: string, path: CommandNode[]): UsageError {
  return new UsageError(message, { command: path.map((n) => n.name) });
}

function valueError(message: string, path: CommandNode[]): UsageError {
  return new UsageError(message, { showUsage: false, command: path.map((n) => n.name) });
}
