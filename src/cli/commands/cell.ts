import { spawn } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type CellHandle,
  CellStartError,
  createConfiguredBackend,
  keeperFiles,
  listKeptCells,
  loadHostConfig,
  type MessageBody,
  ProtocolPeer,
  runCellKeeper,
  usersDir,
} from "../../cells/index.js";
import type { ProtocolMessage } from "../../contracts/cell/index.js";
import type { IronclawdConfig } from "../../contracts/index.js";
import { createLogger, ironclawHome } from "../../core/index.js";
import { HostProviders, serveCellRequests } from "../../warden/index.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";
import { explainAccessError } from "../home-access.js";

const usage = `Usage: ironclaw cell start --user <uid> [--foreground] [--dev-handler echo|shell]
       ironclaw cell stop --user <uid>
       ironclaw cell list [--json]
       ironclaw cell exec --user <uid> [--json] <message text>
       ironclaw cell exec --user <uid> --list <path> | --read <path> | --write <path> --content <text>

Runs a user's agent in its cell, with the backend of [cells] in IRONCLAW_HOME/ironclawd.toml (auto by
default). start keeps the cell running in the background until stop; exec sends one message (or file
operation) to the running cell, or to a temporary one when none runs, and prints the reply. The agent's
model calls and web fetches go through the providers and egress policy of ironclawd.toml, as under the
warden (\`ironclaw serve\`); the cell holds no key. --dev-handler runs a development handler instead of the
agent: echo answers with the text, shell runs it as a shell command inside the cell (for testing only).`;

const HANDLERS = ["agent", "echo", "shell"] as const;

/** The warden's side of a cell started from the CLI: model calls and fetches under ironclawd.toml. */
function hostSide(config: IronclawdConfig, io: CliIo, user: string): (cell: CellHandle) => () => void {
  const providers = new HostProviders(config, io.env);
  return (cell) =>
    serveCellRequests(cell, {
      userId: user,
      providers,
      egress: config.egress,
      audit: (entry) => println(io.stderr, `audit: ${entry.action} ${JSON.stringify(entry.detail)}`),
      logger: createLogger("cell", { level: "warn" }),
    });
}

export const cellCommand: CliCommand = {
  name: "cell",
  summary: "start, stop, list cells and send a message into one",
  usage,
  async run(argv, io) {
    try {
      return await runCell(argv, io);
    } catch (error) {
      // A cell that cannot start is the host's situation, not a bug: say why and what to do, in one line.
      if (!(error instanceof CellStartError)) throw error;
      println(io.stderr, `${START_FAILED}${explainAccessError(error, io.env) ?? firstLine(error.message)}`);
      return 1;
    }
  },
};

const START_FAILED = "ironclaw cell: ";

function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? text;
}

async function runCell(argv: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      foreground: { type: "boolean" },
      "dev-handler": { type: "string" },
      json: { type: "boolean" },
      list: { type: "string" },
      read: { type: "string" },
      write: { type: "string" },
      content: { type: "string" },
    },
  });
  const home = ironclawHome(io.env);
  const runDir = join(home, "run", "cells");
  if (action === "list") return listCells(io, runDir, values.json === true);
  if (action !== "start" && action !== "stop" && action !== "exec")
    throw new UsageError("expected start, stop, list or exec");
  const user = values.user;
  if (!user) throw new UsageError("--user is required");
  const handler = values["dev-handler"] ?? "agent";
  if (
    !(HANDLERS as readonly string[]).includes(handler) ||
    (values["dev-handler"] !== undefined && handler === "agent")
  )
    throw new UsageError(`--dev-handler must be one of echo, shell`);
  const spec = { handler: handler as (typeof HANDLERS)[number] };
  if (action === "stop") return stopCell(io, runDir, user);
  if (action === "start") {
    if (values.foreground) return keepCell(io, home, runDir, user, spec);
    return startDetached(io, home, runDir, user, rest);
  }
  const body = execBody(values, positionals.join(" "));
  return execInCell(io, home, runDir, user, spec, body, values.json === true);
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
  spec: { handler: "agent" | "echo" | "shell" },
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
    spec,
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

function execBody(
  values: { list?: string; read?: string; write?: string; content?: string },
  text: string,
): MessageBody {
  if (values.list !== undefined) return { type: "FileOpRequest", op: "list", path: values.list };
  if (values.read !== undefined) return { type: "FileOpRequest", op: "read", path: values.read };
  if (values.write !== undefined) {
    if (values.content === undefined) throw new UsageError("--write needs --content");
    return { type: "FileOpRequest", op: "write", path: values.write, content: values.content };
  }
  if (!text) throw new UsageError("give the message text, or --list/--read/--write");
  return { type: "UserMessage", text };
}

async function execInCell(
  io: CliIo,
  home: string,
  runDir: string,
  user: string,
  spec: { handler: "agent" | "echo" | "shell" },
  body: MessageBody,
  json: boolean,
): Promise<number> {
  const kept = (await listKeptCells(runDir)).find((c) => c.user === user);
  let replies: AsyncGenerator<ProtocolMessage>;
  let done: () => Promise<void>;
  if (kept) {
    const socket = connect(kept.socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const peer = new ProtocolPeer(socket, { userId: user, sessionId: "cli", heartbeatMs: 0 });
    replies = peer.request(body);
    done = async () => peer.close();
  } else {
    const config = loadHostConfig(home);
    const { backend } = await createConfiguredBackend(config, {
      home,
      onWarning: (w) => println(io.stderr, `warning: ${w}`),
    });
    println(io.stderr, `no running cell for ${user}: starting a temporary ${backend.name} cell`);
    const cell: CellHandle = await backend.start({
      ...spec,
      userId: user,
      userDir: join(usersDir(config, home), user),
    });
    const detach = hostSide(config, io, user)(cell);
    replies = cell.request(body);
    done = async () => {
      detach();
      await cell.stop();
    };
  }
  let code = 0;
  try {
    for await (const reply of replies) {
      if (json) println(io.stdout, JSON.stringify(reply));
      else if (reply.type === "StreamDelta") io.stdout.write(reply.delta);
      else if (reply.type === "TurnComplete") {
        if (reply.error) println(io.stderr, `error: ${reply.error}`);
        println(io.stdout);
        code = reply.stop_reason === "error" ? 1 : 0;
      } else if (reply.type === "FileOpResult") {
        if (reply.error) println(io.stderr, `${reply.error.code}: ${reply.error.message}`);
        else if (reply.content !== undefined) io.stdout.write(reply.content);
        else if (reply.entries)
          for (const e of reply.entries) println(io.stdout, `${e.kind === "dir" ? "d" : "-"} ${e.path}`);
        code = reply.error ? 1 : 0;
      } else if (reply.type === "Error") {
        println(io.stderr, `${reply.code}: ${reply.message}`);
        code = 1;
      }
    }
  } finally {
    await done();
  }
  return code;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
