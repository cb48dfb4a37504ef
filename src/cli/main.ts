#!/usr/bin/env node
import { pathToFileURL } from "node:url";
import { IronclawError } from "../core/index.js";
import { type CliCommand, type CliIo, println, UsageError } from "./command.js";
import { commands } from "./commands/index.js";
import { explainAccessError } from "./home-access.js";

const VERSION = "0.1.0";

function printHelp(io: CliIo): void {
  println(io.stdout, `ironclaw ${VERSION} — sovereign, self-hosted AI agents in their own cells\n`);
  println(io.stdout, "Usage: ironclaw <command> [options]\n");
  println(io.stdout, "Commands:");
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) println(io.stdout, `  ${c.name.padEnd(width)}  ${c.summary}`);
  println(io.stdout, "\nRun `ironclaw <command> --help` for a command's options.");
}

/** Runs one CLI invocation and returns its exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    printHelp(io);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    println(io.stdout, VERSION);
    return 0;
  }
  const command: CliCommand | undefined = commands.find((c) => c.name === name);
  if (!command) {
    println(io.stderr, `ironclaw: unknown command '${name}'`);
    printHelp(io);
    return 2;
  }
  if (rest[0] === "--help" || rest[0] === "-h") {
    println(io.stdout, command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      println(io.stderr, `ironclaw ${name}: ${error.message}\n`);
      println(io.stderr, command.usage);
      return 2;
    }
    const denied = explainAccessError(error, io.env);
    if (denied !== undefined) {
      println(io.stderr, `ironclaw ${name}: ${denied}`);
      return 1;
    }
    if (error instanceof IronclawError) {
      println(io.stderr, `ironclaw ${name}: ${error.message}`);
      return 1;
    }
    println(io.stderr, `ironclaw ${name}: unexpected failure: ${(error as Error).stack ?? String(error)}`);
    return 70;
  }
}

const entry = process.argv[1];
const isEntry = entry !== undefined && import.meta.url === pathToFileURL(entry).href;
if (isEntry) {
  const io: CliIo = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
  runCli(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}
