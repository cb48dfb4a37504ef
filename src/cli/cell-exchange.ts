import { connect } from "node:net";
import { join } from "node:path";
import {
  type CellHandle,
  createConfiguredBackend,
  listKeptCells,
  loadHostConfig,
  usersDir,
} from "../cells/index.js";
import { type MessageBody, ProtocolPeer } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import { createLogger, ironclawHome } from "../core/index.js";
import { HostProviders, serveCellRequests, withHostEnv } from "../warden/index.js";
import { cliCellSpec } from "./cell-owner.js";
import { type CliIo, println, UsageError } from "./command.js";

/** What answers inside a cell started from the CLI: the agent, or a development handler. */
export type CellHandler = "agent" | "echo" | "shell";

/** The warden's side of a cell started from the CLI: model calls and fetches under ironclawd.toml. */
export function hostSide(config: IronclawdConfig, io: CliIo, user: string): (cell: CellHandle) => () => void {
  const providers = new HostProviders(config, withHostEnv(ironclawHome(io.env), io.env));
  return (cell) =>
    serveCellRequests(cell, {
      userId: user,
      providers,
      egress: config.egress,
      audit: (entry) => println(io.stderr, `audit: ${entry.action} ${JSON.stringify(entry.detail)}`),
      logger: createLogger("cell", { level: "warn" }),
    });
}

/** The message an exec sends: a file operation when one is asked for, else the text. */
export function execBody(
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

/** Sends one message to the user's kept cell, or to a temporary one, and prints the replies as they come. */
export async function execInCell(
  io: CliIo,
  home: string,
  runDir: string,
  user: string,
  spec: { handler: CellHandler },
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
      ...cliCellSpec(home, user, backend),
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
