#!/usr/bin/env node
import type { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { IronclawError } from "../core/index.js";
import { parseCommandLine } from "./arg-parser.js";
import { findClosestName } from "./closest-name.js";
import { type CliIo, println, UsageError } from "./command.js";
import type { CommandNode } from "./command-spec.js";
import { commands } from "./commands/index.js";
import { renderHelp, renderUsageLines } from "./help-text.js";
import { explainAccessError } from "./home-access.js";

const VERSION = "0.1.0";

/** Exit codes: what a script calling ironclaw can rely on. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unexpected: 70 } as const;

function printCommandList(out: Writable): void {
  println(out, `ironclaw ${VERSION} — sovereign, self-hosted AI agents in their own cells\n`);
  println(out, "Usage: ironclaw <command> [options]\n");
  println(out, "Commands:");
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) println(out, `  ${c.name.padEnd(width)}  ${c.summary}`);
  println(out, "\nRun `ironclaw <command> --help` (or `ironclaw help <command> …`) for a command's options.");
}

/** Runs one CLI invocation and returns its exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    printCommandList(io.stdout);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    println(io.stdout, VERSION);
    return EXIT.ok;
  }
  if (name === "help") return showHelp(rest, io);
  const command = findCommand(name, io);
  if (!command) return EXIT.usage;
  let reached = [command.name];
  try {
    const parsed = parseCommandLine(command, rest);
    if (parsed.kind === "help") {
      println(io.stdout, renderHelp(parsed.path));
      return EXIT.ok;
    }
    reached = parsed.path.map((n) => n.name);
    return await parsed.leaf.run({ options: parsed.options, args: parsed.args }, io);
  } catch (error) {
    return reportFailure(error, command, reached, io);
  }
}

function findCommand(name: string, io: CliIo): CommandNode | undefined {
  const command = commands.find((c) => c.name === name);
  if (command) return command;
  const guess = findClosestName(
    name,
    commands.map((c) => c.name),
  );
  println(io.stderr, `ironclaw: unknown command '${name}'${guess ? ` (did you mean ${guess}?)` : ""}`);
  printCommandList(io.stderr);
  return undefined;
}

/** `ironclaw help user add` prints what `ironclaw user add --help` prints. */
function showHelp(names: string[], io: CliIo): number {
  const [first, ...more] = names;
  if (first === undefined) {
    printCommandList(io.stdout);
    return EXIT.ok;
  }
  const command = findCommand(first, io);
  if (!command) return EXIT.usage;
  try {
    const parsed = parseCommandLine(command, [...more, "--help"]);
    println(io.stdout, renderHelp(parsed.path));
    return EXIT.ok;
  } catch (error) {
    return reportFailure(error, command, [command.name], io);
  }
}

/** One line naming what went wrong; the usage follows a mistake in the shape of the command line. */
function reportFailure(error: unknown, command: CommandNode, reached: readonly string[], io: CliIo): number {
  const prefix = `ironclaw ${command.name}:`;
  if (error instanceof UsageError) {
    println(io.stderr, `${prefix} ${error.message}`);
    if (error.showUsage) {
      println(io.stderr);
      for (const line of renderUsageLines([command])) println(io.stderr, line);
      const where = ["ironclaw", ...(error.command ?? reached)].join(" ");
      println(io.stderr, `Run \`${where} --help\` for details.`);
    }
    return EXIT.usage;
  }
  const denied = explainAccessError(error, io.env);
  if (denied !== undefined) {
    println(io.stderr, `${prefix} ${denied}`);
    return EXIT.failed;
  }
  if (error instanceof IronclawError) {
    println(io.stderr, `${prefix} ${error.message}`);
    return EXIT.failed;
  }
  println(io.stderr, `${prefix} unexpected failure: ${(error as Error).stack ?? String(error)}`);
  return EXIT.unexpected;
}

/**
 * Runs the CLI on this process's arguments and streams; what `bin/ironclaw.js` and `node src/cli/main.ts` do.
 * A reader that stops early (`ironclaw memory search … | head -3`) closes the pipe: the CLI then ends quietly,
 * as other command-line tools do, instead of dying on the write that failed with a stack trace.
 */
export async function runFromProcess(): Promise<void> {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? EXIT.ok);
  });
  const io: CliIo = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
  process.exitCode = await runCli(process.argv.slice(2), io);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) await runFromProcess();
