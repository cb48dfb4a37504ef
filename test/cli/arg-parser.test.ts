import { describe, expect, expectTypeOf, it } from "vitest";
import { parseCommandLine } from "../../src/cli/arg-parser.js";
import { type CliIo, UsageError } from "../../src/cli/command.js";
import { defineCommand, defineGroup } from "../../src/cli/command-spec.js";
import { renderHelp } from "../../src/cli/help-text.js";

// A small command tree with one of everything the declaration can say; its handler records what it received.
const received: { last?: { options: Record<string, unknown>; args: Record<string, unknown> } } = {};

const copy = defineCommand({
  name: "copy",
  summary: "copy a file somewhere",
  positionals: [
    { name: "source", required: true, description: "what to copy" },
    { name: "targets", variadic: true, description: "where to" },
  ],
  options: [
    { name: "owner", type: "string", required: true, valueName: "who", description: "who owns the copy" },
    { name: "count", type: "number", integer: true, min: 1, max: 9, description: "how many copies" },
    { name: "offset", type: "number", description: "shift every byte by this much" },
    { name: "level", type: "number", default: 3, description: "compression level" },
    { name: "mode", type: "string", choices: ["fast", "safe"], description: "how carefully" },
    { name: "tag", type: "list", valueName: "tag", description: "labels for the copy" },
    { name: "force", short: "f", type: "boolean", description: "overwrite what is there" },
  ],
  async run({ options, args }) {
    expectTypeOf(options.owner).toEqualTypeOf<string>();
    expectTypeOf(options.count).toEqualTypeOf<number | undefined>();
    expectTypeOf(options.level).toEqualTypeOf<number>();
    expectTypeOf(options.mode).toEqualTypeOf<"fast" | "safe" | undefined>();
    expectTypeOf(options.tag).toEqualTypeOf<string[]>();
    expectTypeOf(options.force).toEqualTypeOf<boolean>();
    expectTypeOf(args.source).toEqualTypeOf<string>();
    expectTypeOf(args.targets).toEqualTypeOf<string[]>();
    received.last = { options, args };
    return 0;
  },
});

const show = defineCommand({
  name: "show",
  summary: "show one table",
  positionals: [{ name: "table", required: true, description: "the table" }],
  async run() {
    return 0;
  },
});

const tool = defineGroup({
  name: "tool",
  summary: "a command to test the parser with",
  subcommands: [copy, defineGroup({ name: "db", summary: "the database", subcommands: [show] }), show],
});

const io = {} as CliIo;

/** Parses and runs like the CLI does; returns what the handler got. */
async function run(...argv: string[]) {
  const parsed = parseCommandLine(tool, argv);
  if (parsed.kind !== "run") throw new Error(`expected a run, got ${parsed.kind}`);
  received.last = undefined;
  expect(await parsed.leaf.run({ options: parsed.options, args: parsed.args }, io)).toBe(0);
  return takeReceived();
}

function takeReceived() {
  if (!received.last) throw new Error("the handler did not run");
  return received.last;
}

function failure(...argv: string[]): UsageError {
  try {
    parseCommandLine(tool, argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(" ")}`);
}

describe("the argument parser", () => {
  it("hands over typed values, with defaults for what was not given", async () => {
    const { options, args } = await run("copy", "a.txt", "--owner", "ada", "--count", "2", "b/", "c/");
    expect(options).toEqual({ owner: "ada", count: 2, level: 3, force: false, tag: [] });
    expect(args).toEqual({ source: "a.txt", targets: ["b/", "c/"] });
  });

  it("reads --flag=value and --flag value alike", async () => {
    const spaced = await run("copy", "a", "--owner", "ada", "--mode", "safe", "--level", "7");
    const joined = await run("copy", "a", "--owner=ada", "--mode=safe", "--level=7");
    expect(joined).toEqual(spaced);
    expect(joined.options).toMatchObject({ owner: "ada", mode: "safe", level: 7 });
  });

  it("takes negative numbers as values, and as arguments", async () => {
    expect((await run("copy", "a", "--owner", "ada", "--offset", "-3")).options.offset).toBe(-3);
    expect((await run("copy", "a", "--owner", "ada", "--offset=-0.5")).options.offset).toBe(-0.5);
    expect((await run("copy", "-5", "--owner", "ada")).args.source).toBe("-5");
  });

  it("names the flag and the rule when a value does not fit, on one line without the usage", () => {
    const cases: Array<[string[], string]> = [
      [["--count", "abc"], '--count: expected a number, got "abc"'],
      [["--count", "1.5"], '--count: expected a whole number, got "1.5"'],
      [["--count", "0"], "--count: must be from 1 to 9, got 0"],
      [["--mode", "reckless"], "--mode: must be one of fast, safe"],
      [["--owner"], "--owner: expected <who> after it"],
      [["--force=maybe"], '--force: takes no value (or true|false), got "maybe"'],
    ];
    for (const [flags, message] of cases) {
      const error = failure("copy", "a", "--owner", "ada", ...flags);
      expect([error.message, error.showUsage]).toEqual([message, false]);
    }
  });

  it("matches a choice without regard to case and hands over its declared spelling", async () => {
    expect((await run("copy", "a", "--owner", "ada", "--mode", "FAST")).options.mode).toBe("fast");
  });

  it("refuses a missing required option, a missing or extra argument, with the usage", () => {
    const cases: Array<[string[], string]> = [
      [["copy", "a"], "missing --owner <who>"],
      [["copy", "--owner", "ada"], "missing <source>"],
      [["show", "t1", "t2"], "unexpected argument 't2'"],
    ];
    for (const [argv, message] of cases) {
      const error = failure(...argv);
      expect([error.message, error.showUsage]).toEqual([message, true]);
    }
  });

  it("names an unknown flag with the closest one it knows", () => {
    expect(failure("copy", "a", "--owner", "ada", "--foo").message).toBe(
      "unknown option --foo (did you mean --force?)",
    );
    expect(failure("copy", "a", "--owner", "ada", "--zzz=1").message).toBe("unknown option --zzz");
    expect(failure("copy", "a", "-q").message).toBe("unknown option -q");
  });

  it("lists the subcommands when none is given, and guesses a mistyped one", () => {
    expect(failure().message).toBe("missing subcommand: copy, db or show");
    expect(failure("db").message).toBe("missing subcommand: show");
    expect(failure("cpy").message).toBe("unknown subcommand 'cpy' (did you mean copy?)");
    expect(failure("db", "shwo", "t").command).toEqual(["tool", "db"]);
  });

  it("answers --help and -h at every level, even after a mistake on the same line", () => {
    const at = (...argv: string[]) => {
      const parsed = parseCommandLine(tool, argv);
      return parsed.kind === "help" ? parsed.path.map((n) => n.name) : undefined;
    };
    expect(at("--help")).toEqual(["tool"]);
    expect(at("copy", "-h")).toEqual(["tool", "copy"]);
    expect(at("db", "--help")).toEqual(["tool", "db"]);
    expect(at("db", "show", "-h")).toEqual(["tool", "db", "show"]);
    expect(at("copy", "--count", "abc", "--help")).toEqual(["tool", "copy"]);
  });

  it("stops reading flags at --", async () => {
    const { options, args } = await run("copy", "--owner", "ada", "--", "--force", "-h");
    expect(options.force).toBe(false);
    expect(args).toEqual({ source: "--force", targets: ["-h"] });
  });

  it("collects a repeated list option, and comma-separated values in it", async () => {
    const { options } = await run("copy", "a", "--owner", "ada", "--tag", "x", "--tag=y,z", "-f");
    expect(options).toMatchObject({ tag: ["x", "y", "z"], force: true });
  });

  it("accepts flags before the subcommand's name", async () => {
    const { options, args } = await run("--owner", "ada", "copy", "a", "--force=false");
    expect(options).toMatchObject({ owner: "ada", force: false });
    expect(args.source).toBe("a");
  });

  it("refuses a declaration it could not honour, when the command is defined", () => {
    const twice = [
      { name: "x", type: "string", description: "" },
      { name: "x", type: "boolean", description: "" },
    ] as const;
    expect(() => defineCommand({ name: "bad", summary: "", options: twice, run: async () => 0 })).toThrow(
      /option x is declared twice/,
    );
    const rest = [
      { name: "all", variadic: true, description: "" },
      { name: "last", description: "" },
    ] as const;
    expect(() => defineCommand({ name: "bad", summary: "", positionals: rest, run: async () => 0 })).toThrow(
      /only the last argument/,
    );
  });
});

describe("help derived from the declaration", () => {
  it("aligns every option's description in one column and says what the declaration implies", () => {
    const text = renderHelp([tool, copy]);
    expect(text.split("\n").slice(0, 2)).toEqual([
      "Usage: ironclaw tool copy --owner <who> <source> [<targets>…] [--count <n>] [--offset <n>] [--level <n>]",
      `${" ".repeat(26)}[--mode fast|safe] [--tag <tag>] [--force]`,
    ]);
    const options = text.slice(text.indexOf("Options:\n") + 9).split("\n");
    expect(options).toHaveLength(8);
    // Where each description starts: after the flag and the first run of two or more spaces.
    const columns = options.map((line) => {
      const match = /^(\s*\S.*?\S)( {2,})\S/.exec(line);
      return match ? (match[1]?.length ?? 0) + (match[2]?.length ?? 0) : -1;
    });
    expect(new Set(columns).size).toBe(1);
    expect(columns[0]).toBeGreaterThan(0);
    expect(text).toContain("  -f, --force ");
    expect(text).toMatch(/--owner <who> +who owns the copy \(required\)/);
    expect(text).toMatch(/--level <n> +compression level \(default: 3\)/);
    expect(text).toMatch(/--count <n> +how many copies \(1 to 9\)/);
    expect(text).toMatch(/--mode fast\|safe +how carefully/);
    expect(text).toMatch(/--tag <tag> +labels for the copy \(repeat it, or separate values with commas\)/);
  });

  it("shows a group's forms and subcommands", () => {
    const text = renderHelp([tool]);
    expect(text).toContain("Usage: ironclaw tool copy ");
    expect(text).toContain("       ironclaw tool db show <table>");
    expect(text).toMatch(/^ {2}db +the database$/m);
  });
});
