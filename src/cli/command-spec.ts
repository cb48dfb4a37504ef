import type { CliIo } from "./command.js";

/** How an option's text becomes a value: `list` collects every occurrence (and comma-separated parts). */
export type OptionType = "string" | "boolean" | "number" | "list";

export interface OptionSpec {
  /** The long name, without dashes: `daily-usd` is `--daily-usd`, and the key of its value. */
  readonly name: string;
  /** One letter: `f` is `-f`. */
  readonly short?: string;
  readonly type: OptionType;
  readonly description: string;
  /** What the help shows after the flag: `--brain <dir>`; choices are shown when there is none. */
  readonly valueName?: string;
  readonly required?: boolean;
  /** The accepted values; matched without regard to case and handed over as spelled here. */
  readonly choices?: readonly string[];
  readonly default?: string | number;
  /** For numbers: whole numbers only, and the inclusive bounds. */
  readonly integer?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** Like --help: given this, the command needs none of its required options or arguments (`validate --list`). */
  readonly standalone?: boolean;
}

export interface PositionalSpec {
  /** The key of its value. */
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** Takes every remaining argument; only the last positional may. */
  readonly variadic?: boolean;
  /** What the help and the errors call it, inside <>: `file|-`. Default: the name. */
  readonly valueName?: string;
}

type ScalarOf<O extends OptionSpec> = O extends { readonly type: "number" }
  ? number
  : O extends { readonly choices: readonly (infer C extends string)[] }
    ? C
    : string;

/** What a handler receives for one option: booleans and lists always have a value, others when given or defaulted. */
export type OptionValue<O extends OptionSpec> = O extends { readonly type: "boolean" }
  ? boolean
  : O extends { readonly type: "list" }
    ? string[]
    : O extends { readonly required: true } | { readonly default: string | number }
      ? ScalarOf<O>
      : ScalarOf<O> | undefined;

export type OptionValues<Os extends readonly OptionSpec[]> = {
  [O in Os[number] as O["name"]]: OptionValue<O>;
};

export type PositionalValues<Ps extends readonly PositionalSpec[]> = {
  [P in Ps[number] as P["name"]]: P extends { readonly variadic: true }
    ? string[]
    : P extends { readonly required: true }
      ? string
      : string | undefined;
};

export interface Invocation<Os extends readonly OptionSpec[], Ps extends readonly PositionalSpec[]> {
  options: OptionValues<Os>;
  args: PositionalValues<Ps>;
}

interface NodeBase {
  readonly name: string;
  /** One line, shown in the parent's list of subcommands. */
  readonly summary: string;
  /** Paragraphs shown by --help under the usage lines; the summary when absent. */
  readonly description?: string;
}

/** A command that runs: `ironclaw user add`, `ironclaw doctor`. */
export interface LeafCommand extends NodeBase {
  readonly kind: "leaf";
  readonly options: readonly OptionSpec[];
  readonly positionals: readonly PositionalSpec[];
  /** Returns the exit code. Values were checked against the declaration before the call. */
  run(input: { options: Record<string, unknown>; args: Record<string, unknown> }, io: CliIo): Promise<number>;
}

/** A command made of subcommands: `ironclaw user`, `ironclaw ledger show`. */
export interface CommandGroup extends NodeBase {
  readonly kind: "group";
  readonly subcommands: readonly CommandNode[];
  /**
   * The subcommand that takes the words when none of them names one: `ironclaw run --theater t "objective"` is
   * `ironclaw run start --theater t "objective"`.
   */
  readonly fallback?: string;
}

export type CommandNode = LeafCommand | CommandGroup;

export interface LeafDefinition<Os extends readonly OptionSpec[], Ps extends readonly PositionalSpec[]>
  extends NodeBase {
  readonly options?: Os;
  readonly positionals?: Ps;
  run(input: Invocation<Os, Ps>, io: CliIo): Promise<number>;
}

/** Declares a runnable command; its handler gets values typed from the declaration. */
export function defineCommand<
  const Os extends readonly OptionSpec[] = readonly [],
  const Ps extends readonly PositionalSpec[] = readonly [],
>(definition: LeafDefinition<Os, Ps>): LeafCommand {
  checkDeclaration(definition.name, definition.options ?? [], definition.positionals ?? []);
  return {
    kind: "leaf",
    name: definition.name,
    summary: definition.summary,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    options: definition.options ?? [],
    positionals: definition.positionals ?? [],
    // The parser produced exactly the shape the declaration describes; this is where that is asserted once.
    run: (input, io) => definition.run(input as unknown as Invocation<Os, Ps>, io),
  };
}

/** Declares a command whose first argument picks one of its subcommands. */
export function defineGroup(
  definition: NodeBase & { subcommands: readonly CommandNode[]; fallback?: string },
): CommandGroup {
  return { kind: "group", ...definition };
}

/** A declaration the parser could not honour is a programming mistake: fail at load, not on some user's input. */
function checkDeclaration(
  command: string,
  options: readonly OptionSpec[],
  positionals: readonly PositionalSpec[],
): void {
  const seen = new Set<string>(["help", "h"]);
  for (const option of options) {
    for (const key of [option.name, option.short]) {
      if (key === undefined) continue;
      if (seen.has(key)) throw new Error(`${command}: option ${key} is declared twice (or shadows --help)`);
      seen.add(key);
    }
    if (option.short !== undefined && !/^[a-zA-Z]$/.test(option.short))
      throw new Error(`${command}: --${option.name}: a short name is one letter`);
  }
  positionals.forEach((p, i) => {
    if (p.variadic && i !== positionals.length - 1)
      throw new Error(`${command}: only the last argument may take the rest (<${p.name}>)`);
    const before = positionals[i - 1];
    if (p.required && before !== undefined && !before.required)
      throw new Error(`${command}: required <${p.name}> cannot follow an optional argument`);
  });
}

/** The --json of every command that has one, so they all read alike: the same result, as JSON, on stdout. */
export function jsonOption(what: string) {
  return { name: "json", type: "boolean", description: `print ${what} as JSON on stdout` } as const;
}
