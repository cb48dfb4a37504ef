import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdir } from "node:fs/promises";
import { ensureBrainDir } from "../../src/cells/brain-dir.js";
import { launchChildCell } from "../../src/cells/child-cell.js";
import {
  assertUserId,
  type CellBackend,
  type CellHandle,
  type CellStartSpec,
} from "../../src/cells/index.js";
import type { ProtocolPeer } from "../../src/channel/index.js";
import {
  type CellHandler,
  createEchoDevHandler,
  createShellTestHandler,
  serveCell,
} from "../../src/inmate/index.js";
import { pipePair } from "./pipe-pair.js";

/**
 * A cell without a sandbox or a process: the inmate's server (the real one, src/inmate/cell-server.ts) runs in
 * this process on one end of an in-memory duplex, the warden's peer on the other, with the same lifecycle as a
 * real cell (first Heartbeat, Shutdown, flush, exit) because the handle is made by the same launchChildCell.
 * What it serves is the real agent on the user's brain by default, or a scripted handler a test writes. It tests
 * the warden's logic (chat, proxies, budgets, soul checks, conversations) in milliseconds; what only isolation
 * proves (no network, no key, other uids, escapes) stays with the real backends' journeys.
 */
export interface FakeCellOptions {
  /** What serves the cell; default: the agent handler, as in production, through the warden's proxies. */
  handler?: (peer: ProtocolPeer, brainRoot: string) => CellHandler | Promise<CellHandler>;
  /** Called with every started cell, for tests that inspect or break one. */
  onStart?: (cell: FakeCell) => void;
}

export interface FakeCell {
  userId: string;
  brainRoot: string;
  /** Ends the inmate the way a crash would: the channel drops and the "process" exits with a status. */
  crash(code?: number): void;
}

export function createFakeCellBackend(options: FakeCellOptions = {}): CellBackend & { started: FakeCell[] } {
  const started: FakeCell[] = [];
  return {
    name: "process",
    isolated: false,
    started,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      await mkdir(spec.userDir, { recursive: true });
      const brain = await ensureBrainDir(spec.userDir, spec.brainSeed);
      const [hostSide, guestSide] = pipePair();
      // A real inmate takes long enough to load its agent that the warden listens before the agent's first
      // request (its embedder's probe); in one process the agent would ask first and go unheard. So the agent
      // is built once the warden has spoken (its Hello), as a slow cell's would be.
      let spoke = () => {};
      const hostSpoke = new Promise<void>((resolve) => {
        spoke = resolve;
      });
      const child = new FakeChild(() => guestSide.destroy());
      const makeHandler =
        options.handler ??
        (spec.handler === "echo"
          ? () => createEchoDevHandler()
          : spec.handler === "shell"
            ? () => createShellTestHandler()
            : async (peer: ProtocolPeer, brainRoot: string) => {
                // Loaded on first use: the agent's modules take most of a second to load, and scripted cells
                // never need them.
                const { createAgentHandler } = await import("../../src/inmate/agent-handler.js");
                return createAgentHandler({ brainRoot, warden: peer, workspace: brainRoot });
              });
      const served = serveCell(
        guestSide,
        async (peer) => {
          await hostSpoke;
          return makeHandler(peer, brain.dir);
        },
        {
          userId: spec.userId,
          brainRoot: brain.dir,
          ...(spec.maxFrameBytes === undefined ? {} : { maxFrameBytes: spec.maxFrameBytes }),
          ...(spec.heartbeatMs === undefined ? {} : { heartbeatMs: spec.heartbeatMs }),
        },
      );
      // After the inmate's peer listens, so both see the warden's first bytes.
      guestSide.once("data", () => spoke());
      // The guest's end of the channel closing is the inmate's exit, as a runtime's process exits after it.
      served.then(
        () => child.exit(0, null),
        () => child.exit(1, null),
      );
      const cell: FakeCell = {
        userId: spec.userId,
        brainRoot: brain.dir,
        crash: (code = 1) => {
          guestSide.destroy();
          hostSide.destroy();
          child.exit(code, null);
        },
      };
      started.push(cell);
      options.onStart?.(cell);
      return launchChildCell({
        backend: "process",
        isolated: false,
        spec,
        child: child as unknown as ChildProcess,
        channel: hostSide,
        stopTimeoutMs: 5_000,
      });
    },
  };
}

/** What launchChildCell watches of a process: exit, error, kill, pid and its status fields. */
class FakeChild extends EventEmitter {
  readonly pid = undefined;
  readonly stderr = null;
  readonly stdout = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;

  constructor(private readonly end: () => void) {
    super();
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    this.end();
    this.exit(null, signal);
    return true;
  }

  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.exitCode = code;
    this.signalCode = signal;
    // After the current turn of the loop, as a real exit event arrives after the pipes' last data.
    setImmediate(() => this.emit("exit", code, signal));
  }
}
