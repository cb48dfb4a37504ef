import { describe, expect, it } from "vitest";
import type { CommandNode } from "../../src/cli/command-spec.js";
import { commands } from "../../src/cli/commands/index.js";
import { runIronclawInProcess } from "./run-cli.js";

/** Every registered command and subcommand, as the words that reach it: ["user"], ["user", "token", "rotate"]. */
function walk(nodes: readonly CommandNode[], above: CommandNode[] = []): CommandNode[][] {
  return nodes.flatMap((node) => {
    const path = [...above, node];
    return node.kind === "group" ? [path, ...walk(node.subcommands, path)] : [path];
  });
}

const paths = walk(commands).map((path) => [path.map((n) => n.name).join(" "), path] as const);

describe("every registered command's help", () => {
  it("covers every command the top-level help lists, and more than the top level", async () => {
    const { stdout } = await runIronclawInProcess(["--help"]);
    for (const command of commands) expect(stdout).toMatch(new RegExp(`^  ${command.name}\\s`, "m"));
    expect(paths.length).toBeGreaterThan(commands.length * 2);
  });

  it.each(paths)("ironclaw %s --help exits 0 and shows everything it declares", async (words, path) => {
    const node = path.at(-1) as CommandNode;
    const { code, stdout, stderr } = await runIronclawInProcess([...words.split(" "), "--help"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(new RegExp(`^(Usage: | {7})ironclaw ${words}( |$)`, "m"));
    expect(node.summary.trim()).not.toBe("");
    if (node.kind === "group") {
      for (const child of node.subcommands) expect(stdout).toMatch(new RegExp(`^  ${child.name}  +\\S`, "m"));
      return;
    }
    for (const option of node.options) {
      expect(option.description.trim(), `--${option.name}`).not.toBe("");
      const flag = `${option.short ? `-${option.short}, ` : ""}--${option.name}`;
      // A long flag puts its description on the next line.
      expect(stdout).toMatch(new RegExp(`^ {2,6}${flag}( \\S+)?(  +\\S|\\n {8,}\\S)`, "m"));
    }
    for (const positional of node.positionals)
      expect(stdout).toContain(`  <${positional.valueName ?? positional.name}>  `);
    expect(stdout).toContain("-h, --help");
  });

  it.each(paths)("ironclaw help %s prints what --help prints", async (words) => {
    const viaHelp = await runIronclawInProcess(["help", ...words.split(" ")]);
    const viaFlag = await runIronclawInProcess([...words.split(" "), "-h"]);
    expect(viaHelp).toEqual(viaFlag);
  });
});

describe("exit codes and messages", () => {
  it("a usage mistake exits 2 with the command's usage and where to read more", async () => {
    const { code, stdout, stderr } = await runIronclawInProcess(["user", "token", "rotate"]);
    expect([code, stdout]).toEqual([2, ""]);
    const lines = stderr.split("\n");
    expect(lines[0]).toBe("ironclaw user: missing <name>");
    expect(stderr).toContain("\nUsage: ironclaw user add <name> [--admin] [--json]\n");
    expect(stderr).toContain("       ironclaw user token rotate <name> [--json]\n");
    expect(stderr.endsWith("Run `ironclaw user token rotate --help` for details.\n")).toBe(true);
  });

  it("a bad value of a flag exits 2 with one line naming the flag and the rule", async () => {
    const cases: Array<[string[], string]> = [
      [["memory", "search", "--brain", "b", "--top-k", "abc", "q"], '--top-k: expected a number, got "abc"'],
      [
        ["memory", "search", "--brain", "b", "--top-k", "500", "q"],
        "--top-k: must be from 1 to 100, got 500",
      ],
      [["ledger", "serve", "--port", "70000"], "--port: must be from 0 to 65535, got 70000"],
      [["usage", "--by", "planet"], "--by: must be one of day, model, agent, session, job, user"],
      [
        ["cell", "exec", "--user", "a", "--dev-handler", "agent", "hi"],
        "--dev-handler: must be one of echo, shell",
      ],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await runIronclawInProcess(args);
      expect([code, stderr]).toEqual([2, `ironclaw ${args[0]}: ${message}\n`]);
    }
  });

  it("an unknown flag or subcommand is named with the closest one", async () => {
    const flag = await runIronclawInProcess(["cron", "list", "--brain", "b", "--jsno"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr.split("\n")[0]).toBe("ironclaw cron: unknown option --jsno (did you mean --json?)");
    const sub = await runIronclawInProcess(["ledger", "tial"]);
    expect(sub.stderr.split("\n")[0]).toBe("ironclaw ledger: unknown subcommand 'tial' (did you mean tail?)");
    const command = await runIronclawInProcess(["ledgr"]);
    expect([command.code, command.stderr.split("\n")[0]]).toEqual([
      2,
      "ironclaw: unknown command 'ledgr' (did you mean ledger?)",
    ]);
  });

  it("a failed operation exits 1 with one line; a failure nobody foresaw exits 70", async () => {
    const failed = await runIronclawInProcess([
      "ledger",
      "show",
      "run",
      "r1",
      "--db",
      "/nonexistent/ledger.db",
    ]);
    expect([failed.code, failed.stderr]).toEqual([
      1,
      "ironclaw ledger: ledger database /nonexistent/ledger.db not found\n",
    ]);
    // /dev/null is no directory, so creating one under it fails with an error no IronClaw code anticipates.
    const crashed = await runIronclawInProcess(["schema", "export", "/dev/null/schemas"]);
    expect(crashed.code).toBe(70);
    expect(crashed.stderr).toMatch(/^ironclaw schema: unexpected failure: Error: ENOTDIR/);
  });

  it("a missing subcommand lists the subcommands", async () => {
    const { code, stderr } = await runIronclawInProcess(["soul"]);
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe("ironclaw soul: missing subcommand: pending, show, approve or reject");
  });
});
