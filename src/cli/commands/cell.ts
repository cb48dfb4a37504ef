import { spawn } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CellStartError,
  createConfiguredBackend,
  keeperFiles,
  listKeptCells,
  loadHostConfig,
  runCellKeeper,
  usersDir,
} from "../../cells/index.js";
import { ironclawHome } from "../../core/index.js";
import { type CellHandler, execBody, execInCell, hostSide } from "../cell-exchange.js";
import { cliCellSpec } from "../cell-owner.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { explainAccessError } from "../home-access.js";

const USER = {
  name: "user",
  type: "string",
  required: true,
  valueName: "uid",
  description: "whose cell",
} as const;
const DEV_HANDLER = {
  name: "dev-handler",
  type: "string",
  choices: ["echo", "shell"],
  description:
    "a development handler instead of the agent: echo answers with the text, shell runs it as a shell command inside the cell (for testing only)",
} as const;
const ABOUT = `Runs a user's agent in its cell, with the backend of [cells] in IRONCLAW_HOME/ironclawd.toml (auto by
default). The agent's model calls and web fetches go through the providers and egress policy of
ironclawd.toml, as under the warden (\`ironclaw serve\`); the cell holds no key.`;

const start = defineCommand({
  name: "start",
  summary: "start a user's cell and keep it running in the background until stop",
  description: ABOUT,
  options: [
    USER,
    DEV_HANDLER,
    {
      name: "foreground",
      type: "boolean",
      description: "keep the cell in this process instead of the background",
    },
  ],
  async run({ options }, io) {
    return reportingStartFailure(io, async () => {
      const { home, runDir } = places(io);
      const spec = { handler: options["dev-handler"] ?? "agent" } as const;
      if (options.foreground) return keepCell(io, home, runDir, options.user, spec);
      const args = [
        "--user",
        options.user,
        ...(options["dev-handler"] ? ["--dev-handler", options["dev-handler"]] : []),
      ];
      return startDetached(io, home, runDir, options.user, args);
    });
  },
});

const stop = defineCommand({
  name: "stop",
  summary: "stop a user's cell started with start",
  options: [USER],
  async run({ options }, io) {
    return stopCell(io, places(io).runDir, options.user);
  },
});

const list = defineCommand({
  name: "list",
  summary: "the cells running in the background",
  options: [jsonOption("the cells")],
  async run({ options }, io) {
    return listCells(io, places(io).runDir, options.json);
  },
});

const exec = defineCommand({
  name: "exec",
  summary: "send one message (or file operation) to the user's cell and print the reply",
  description: `${ABOUT}
Sends one message (or file operation) to the running cell, or to a temporary one when none runs, and
prints the reply.`,
  positionals: [{ name: "message", variadic: true, description: "the message text (words are joined)" }],
  options: [
    USER,
    DEV_HANDLER,
    jsonOption("each reply frame, one per line,"),
    { name: "list", type: "string", valueName: "path", description: "list a directory of the brain instead" },
    { name: "read", type: "string", valueName: "path", description: "print a file of the brain instead" },
    {
      name: "write",
      type: "string",
      valueName: "path",
      description: "write a file of the brain (with --content)",
    },
    { name: "content", type: "string", valueName: "text", description: "what --write writes" },
  ],
  async run({ options, args }, io) {
    const body = execBody(options, args.message.join(" "));
    return reportingStartFailure(io, async () => {
      const { home, runDir } = places(io);
      const spec = { handler: options["dev-handler"] ?? "agent" } as const;
      return execInCell(io, home, runDir, options.user, spec, body, options.json);
    });
  },
});

export const cellCommand = defineGroup({
  name: "cell",
  summary: "start, stop, list cells and send a message into one",
  description: ABOUT,
  subcommands: [start, stop, list, exec],
});

/** A cell that cannot start is the host's situation, not a bug: say why and what to do, in one line. */
async function reportingStartFailure(io: CliIo, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CellStartError)) throw error;
    println(io.stderr, `${START_FAILED}${explainAccessError(error, io.env) ?? firstLine(error.message)}`);
    return 1;
  }
}

const START_FAILED = "ironclaw cell: ";

function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? text;
}

function places(io: CliIo): { home: string; runDir: string } {
  const home = ironclawHome(io.env);
  return { home, runDir: join(home, "run", "cells") };
}

async function listCells(io: CliIo, runDir: string, json: boolean): Promise<number> {
  const cells = await listKeptCells(runDir);
  if (json) println(io.stdout, JSON.stringify(cells, null, 2));
  else if (cells.length === 0) println(io.stdout, "no cells running");
  else
    for (const c of cells)
      println(io.stdout, `${c.user}\t${c.backend}\tkeeper pid ${c.pid}\tsince ${c.started_at}`);
  return 0;
}

async function stopCell(io: CliIo, runDir: string, user: string): Promise<number> {
  const cell = (await listKeptCells(runDir)).find((c) => c.user === user);
  if (!cell) {
    println(io.stderr, `no running cell for ${user}`);
    return 1;
  }
  process.kill(cell.pid, "SIGTERM");
  const { state } = keeperFiles(runDir, user);
  for (let waited = 0; waited < 60_000 && existsSync(state); waited += 200) await sleep(200);
  println(io.stdout, existsSync(state) ? `asked the cell of ${user} to stop` : `stopped the cell of ${user}`);
  return 0;
}

async function keepCell(
  io: CliIo,
  home: string,
  runDir: string,
  user: string,
  spec: { handler: CellHandler },
) {
  const config = loadHostConfig(home);
  const { backend, choice } = await createConfiguredBackend(config, {
    home,
    onWarning: (w) => println(io.stderr, `warning: ${w}`),
  });
  println(io.stderr, `cell backend: ${choice.backend} — ${choice.reason}`);
  await runCellKeeper({
    backend,
    usersDir: usersDir(config, home),
    runDir,
    userId: user,
    spec: { ...spec, ...cliCellSpec(home, user, backend) },
    log: (l) => println(io.stderr, l),
    onCell: (cell) => void hostSide(config, io, user)(cell),
  });
  return 0;
}

async function startDetached(
  io: CliIo,
  home: string,
  runDir: string,
  user: string,
  args: string[],
): Promise<number> {
  if ((await listKeptCells(runDir)).some((c) => c.user === user)) {
    println(io.stdout, `the cell of ${user} is already running`);
    return 0;
  }
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  const log = join(runDir, `${user}.log`);
  const out = openSync(log, "a");
  // The entry that is running now (bin/ironclaw.js, or src/cli/main.ts under tsx) starts the keeper.
  const main = process.argv[1] ?? fileURLToPath(new URL("../main.js", import.meta.url));
  const child = spawn(
    process.execPath,
    [...process.execArgv, main, "cell", "start", ...args, "--foreground"],
    {
      detached: true,
      stdio: ["ignore", out, out],
      env: { ...io.env, IRONCLAW_HOME: home },
    },
  );
  child.unref();
  const { state } = keeperFiles(runDir, user);
  for (let waited = 0; waited < 180_000; waited += 200) {
    if (existsSync(state)) {
      println(io.stdout, `started the cell of ${user} (keeper pid ${child.pid}, log ${log})`);
      return 0;
    }
    if (child.exitCode !== null) break;
    await sleep(200);
  }
  // The keeper printed why (one START_FAILED line) into the log: repeat it here.
  const why = (await readFile(log, "utf8").catch(() => ""))
    .split("\n")
    .findLast((line) => line.startsWith(START_FAILED));
  println(io.stderr, why ?? `the cell of ${user} did not start; see ${log}`);
  return 1;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
