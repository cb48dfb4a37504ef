import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { type MessageBody, ProtocolPeer } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import type { CellBackend, CellHandle, CellStartSpec } from "./cell.js";
import { CellManager } from "./cell-manager.js";

/** What `ironclaw cell list` reads: one file per kept cell in the run directory. */
export interface KeptCell {
  user: string;
  backend: string;
  /** The keeper process; signal it to stop the cell. */
  pid: number;
  started_at: string;
  socket: string;
}

export function keeperFiles(runDir: string, userId: string): { state: string; socket: string } {
  return { state: join(runDir, `${userId}.json`), socket: join(runDir, `${userId}.sock`) };
}

/**
 * Keeps one user's cell running for the CLI until SIGTERM: restarts it after crashes, and relays protocol
 * requests that arrive on a unix socket (`ironclaw cell exec`) to the cell, replies back. Resolves after a
 * graceful stop.
 */
export async function runCellKeeper(options: {
  backend: CellBackend;
  usersDir: string;
  runDir: string;
  userId: string;
  spec?: Partial<CellStartSpec>;
  log: (line: string) => void;
  /** Called with every cell the keeper starts (restarts included): the host side serves its requests here. */
  onCell?: (cell: CellHandle) => void;
}): Promise<void> {
  const { userId, runDir } = options;
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  const files = keeperFiles(runDir, userId);
  const manager = new CellManager({
    backend: options.backend,
    usersDir: options.usersDir,
    idleStopMs: 0,
    ...(options.spec ? { spec: options.spec } : {}),
  });
  manager.onEvent((event) => {
    options.log(`cell ${event.kind}: ${JSON.stringify(event)}`);
    const cell = event.kind === "started" ? manager.cell(userId) : undefined;
    if (cell) options.onCell?.(cell);
  });
  await manager.get(userId);
  await rm(files.socket, { force: true });
  const server = createServer((socket) => relay(socket, manager, userId));
  await new Promise<void>((resolve) => server.listen(files.socket, resolve));
  const state: KeptCell = {
    user: userId,
    backend: options.backend.name,
    pid: process.pid,
    started_at: new Date().toISOString(),
    socket: files.socket,
  };
  await writeFile(files.state, `${JSON.stringify(state)}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  options.log("stopping the cell gracefully");
  server.close();
  await manager.stopAll();
  await rm(files.state, { force: true });
  await rm(files.socket, { force: true });
}

function relay(socket: Socket, manager: CellManager, userId: string): void {
  const client = new ProtocolPeer(socket, { userId, sessionId: "cli", heartbeatMs: 0 });
  client.onMessage((message) => {
    if (message.type !== "UserMessage" && message.type !== "FileOpRequest" && message.type !== "JobTrigger")
      return;
    void (async () => {
      try {
        for await (const reply of manager.request(userId, withoutHeader(message))) {
          client.send({ ...withoutHeader(reply), reply_to: message.msg_id });
        }
      } catch (error) {
        client.send({
          type: "Error",
          code: "internal",
          message: (error as Error).message || "failed",
          reply_to: message.msg_id,
        });
      }
    })();
  });
}

function withoutHeader(message: ProtocolMessage): MessageBody {
  const { msg_id: _id, timestamp: _at, reply_to: _re, ...body } = message;
  return body as MessageBody;
}

/** The cells kept by live keeper processes; state files of dead keepers are removed. */
export async function listKeptCells(runDir: string): Promise<KeptCell[]> {
  if (!existsSync(runDir)) return [];
  const cells: KeptCell[] = [];
  for (const name of await readdir(runDir)) {
    if (!name.endsWith(".json")) continue;
    const file = join(runDir, name);
    try {
      const cell = JSON.parse(await readFile(file, "utf8")) as KeptCell;
      process.kill(cell.pid, 0);
      cells.push(cell);
    } catch {
      await rm(file, { force: true });
    }
  }
  return cells.sort((a, b) => a.user.localeCompare(b.user));
}
