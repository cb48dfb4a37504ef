import type { ChildProcess } from "node:child_process";
import { Duplex } from "node:stream";
import { ProtocolPeer } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import type { CellBackendName } from "./backend-choice.js";
import {
  type CellExit,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
  type CellStats,
} from "./cell.js";
import { stderrTail } from "./cell-exit.js";
import { treeRssBytes } from "./process-tree.js";

export interface ChildCellInit {
  backend: CellBackendName;
  isolated: boolean;
  spec: CellStartSpec;
  child: ChildProcess;
  /** The protocol stream; a promise when it only exists once the guest connects (microVM sockets). */
  channel: Duplex | Promise<Duplex>;
  /** Runs once after the cell's processes are gone: sockets, locks, temporary files. */
  cleanup?: () => Promise<void>;
  /** The guest's console is on stdout (QEMU): keep its tail for errors and keep the pipe drained. */
  consoleOnStdout?: boolean;
  /** Grace before a stop turns forceful; a booted VM also has to sync and power off. */
  stopTimeoutMs?: number;
  /**
   * Heartbeat periods of silence before the cell counts as lost (default 3). A VM emulated in software (TCG)
   * can be starved for longer than that by a busy host and still be well.
   */
  missedHeartbeats?: number;
  /**
   * The guest was restored from its saved memory, runtime running: it announced itself before it was saved,
   * so it is ready as it is, without a Heartbeat of its own first. It has seen the msg_ids its last warden
   * peer sent: this one starts at `nextMsgId`.
   */
  resumed?: { nextMsgId: number };
  /**
   * Saves the running guest so that its next start resumes it; false when it could not (it then runs on). It
   * is given the msg_id the resumed cell's peer must start from.
   */
  suspend?: (nextMsgId: () => number) => Promise<boolean>;
}

const TAIL_BYTES = 8 * 1024;
/** The silence a starting cell is allowed before its Ready: as long as the warden waits for that Ready. */
const STARTUP_SILENCE_MS = 120_000;

/**
 * The lifecycle every backend shares once it has spawned its host process: wait for the guest's first
 * Heartbeat, watch the process and the channel, stop gracefully then forcefully, report memory.
 */
export async function launchChildCell(init: ChildCellInit): Promise<CellHandle> {
  const { child, spec } = init;
  let tail = "";
  const keepTail = (data: Buffer) => {
    tail = (tail + data.toString()).slice(-TAIL_BYTES);
  };
  child.stderr?.on("data", keepTail);
  if (init.consoleOnStdout) child.stdout?.on("data", keepTail);
  let requested = false;
  let stopReason = "stopped";
  let exitReason = "the cell process exited";
  // An exit can come before the last of stderr (node's fatal error) has been read: the exit waits for it briefly.
  const stderrClosed = new Promise<void>((resolve) => {
    if (!child.stderr) return resolve();
    child.stderr.once("close", resolve);
  });
  const exited = new Promise<CellExit>((resolve) => {
    child.once("exit", (code, signal) => {
      const done = () => {
        const said = stderrTail(tail);
        resolve({
          code,
          signal,
          requested,
          reason: requested ? stopReason : exitReason,
          ...(said ? { stderr: said } : {}),
        });
      };
      // The cleanup (a straggler's kill, the groups' removal) takes nothing from the pipe: both go at once.
      void Promise.all([Promise.race([stderrClosed, sleep(500)]), init.cleanup?.()]).then(done, done);
    });
  });
  const spawnFailed = new Promise<Error>((resolve) =>
    child.once("error", (error) => {
      // A program that never started emits no exit: release what the backend prepared for it here.
      if (child.pid === undefined) void init.cleanup?.();
      resolve(error);
    }),
  );
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const timeoutMs = spec.startTimeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const fail = (why: string): never => {
    kill();
    throw new CellStartError(
      `${init.backend} cell for ${spec.userId} did not start: ${why}\n${tail.trim()}`.trim(),
    );
  };
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const channel = await Promise.race([Promise.resolve(init.channel), exited, spawnFailed, timeout]);
  if (channel === "timeout") fail(`no channel within ${timeoutMs} ms`);
  if (channel instanceof Error) fail(channel.message);
  if (!("pipe" in (channel as object))) fail("the process exited before opening its channel");
  const peer = new ProtocolPeer(channel as Duplex, {
    userId: spec.userId,
    sessionId: "warden",
    ...(spec.maxFrameBytes === undefined ? {} : { maxFrameBytes: spec.maxFrameBytes }),
    heartbeatMs: spec.heartbeatMs ?? 5_000,
    ...(init.missedHeartbeats === undefined ? {} : { missedHeartbeats: init.missedHeartbeats }),
    // A resumed cell was ready when it was saved; a starting one loads its agent and brain before Ready, which
    // the greeting's deadline bounds.
    ...(init.resumed ? { firstMsgId: init.resumed.nextMsgId } : { startupSilenceMs: STARTUP_SILENCE_MS }),
  });
  const ready = new Promise<"ready">((resolve) => {
    if (init.resumed) return resolve("ready");
    const off = peer.onMessage(() => {
      off();
      resolve("ready");
    });
  });
  const first = await Promise.race([ready, exited, peer.closed, timeout]);
  clearTimeout(timer);
  if (first !== "ready") {
    peer.close();
    const why =
      first === "timeout"
        ? `no Heartbeat within ${timeoutMs} ms`
        : "reason" in first && "clean" in first
          ? `the channel closed before the first Heartbeat (${first.reason})`
          : `the process exited (${first.code ?? first.signal}) before the first Heartbeat`;
    fail(why);
  }

  // A channel that dies (missed heartbeats, unrecoverable garbage) means the cell is lost: end the process.
  void peer.closed.then((info) => {
    if (!requested) {
      exitReason = `channel lost: ${info.reason}`;
      setTimeout(kill, 2_000).unref();
    }
  });

  const startedAt = Date.now();
  const save = init.suspend;
  const handle: CellHandle = {
    userId: spec.userId,
    backend: init.backend,
    isolated: init.isolated,
    peer,
    pid: child.pid,
    ...(init.resumed ? { resumed: true } : {}),
    exited,
    send: (body) => peer.send(body),
    request: (body, options) => peer.request(body, options),
    call: (body, options) => peer.call(body, options),
    onEvent: (listener: (message: ProtocolMessage) => void) => peer.onMessage(listener),
    async stop(options = {}) {
      requested = true;
      if (options.reason) stopReason = options.reason;
      // Shutdown first, so the guest stops its running work on purpose; the close that follows is its EOF.
      // Isolated, the cell's processes all end with its host process (a pid namespace that dies with its parent,
      // a VM); a plain process's children would not, so that one is stopped gracefully all the same.
      if (options.discard && init.isolated) {
        peer.close("stopping");
        kill();
        return exited;
      }
      peer.send({ type: "Shutdown", reason: options.reason ?? "the cell is stopping" });
      peer.close("stopping");
      const grace = options.timeoutMs ?? init.stopTimeoutMs ?? 10_000;
      const waited = await Promise.race([exited, sleep(grace)]);
      if (waited) return waited;
      child.kill("SIGTERM");
      const termed = await Promise.race([exited, sleep(2_000)]);
      if (termed) return termed;
      kill();
      return exited;
    },
    ...(save
      ? {
          async suspend(): Promise<CellExit | undefined> {
            if (requested) return undefined;
            // Nothing the channel does while the guest is stopped and saved counts as its loss.
            requested = true;
            stopReason = "suspended";
            if (!(await save(() => peer.nextSentMsgId))) {
              requested = false;
              stopReason = "stopped";
              return undefined;
            }
            peer.close("suspended");
            kill();
            return exited;
          },
        }
      : {}),
    async stats(): Promise<CellStats> {
      return {
        backend: init.backend,
        userId: spec.userId,
        pid: child.pid,
        startedAt: new Date(startedAt).toISOString(),
        uptimeMs: Date.now() - startedAt,
        hostRssBytes: child.pid ? await treeRssBytes(child.pid) : 0,
        channel: { ...peer.stats },
      };
    },
  };
  return handle;
}

function sleep(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

/** The child's stdin/stdout as one duplex stream: the channel of the process and bwrap backends. */
export function duplexOf(child: ChildProcess): Duplex {
  if (!child.stdin || !child.stdout) throw new Error("the cell process has no stdio pipes");
  // The peer destroys the channel when the guest stops reading; the pipes then fail with an AbortError (or
  // EPIPE once the guest is gone). That is the cell's end, reported by its exit, never the warden's crash.
  child.stdin.on("error", () => {});
  child.stdout.on("error", () => {});
  return Duplex.from({ readable: child.stdout, writable: child.stdin });
}
