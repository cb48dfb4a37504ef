import type { GuestHandlerName, MessageBody, PeerStats, ProtocolPeer } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import type { initBrain } from "../memory/index.js";
import type { CellBackendName } from "./backend-choice.js";

/** What a new brain starts with (the host's [new_brains]): the agent's provider and model, the embedder. */
export type BrainSeed = Omit<NonNullable<Parameters<typeof initBrain>[1]>, "agentName">;

/** What a backend needs to start one user's cell. */
export interface CellStartSpec {
  userId: string;
  /** The user's host directory (IRONCLAW_HOME/users/<uid>); the backend keeps the brain inside it. */
  userDir: string;
  /** Which guest handler serves the cell: `agent` in production, `echo`/`shell` for development and tests. */
  handler?: GuestHandlerName;
  /** What the brain starts with when this start creates it (the host's [new_brains]). */
  brainSeed?: BrainSeed;
  /** Egress is denied unless the policy allows it (seed 003 §11). */
  allowNetwork?: boolean;
  /**
   * Environment for the inmate, such as the provider key variables its irowclaw.toml names: the bwrap
   * sandbox starts from an empty environment, so nothing of the warden's leaks in unless listed here.
   */
  env?: Record<string, string>;
  maxFrameBytes?: number;
  heartbeatMs?: number;
  /** How long to wait for the guest's first Heartbeat. */
  startTimeoutMs?: number;
  /**
   * The host uid/gid this user's cell runs as when the warden is root (bwrap): one per user, so two users'
   * cells never share an owner and a wrong bind mount still cannot expose one brain to another cell.
   * Ignored where the warden is not root (the cell is then the warden's own uid in a user namespace).
   */
  runAs?: { uid: number; gid: number };
  /**
   * Leave an empty slot at /mnt/brain/work onto which a host directory can be attached once the cell runs
   * (CellHandle.attachWork): command's cells, which work on an order's worktree. Backends that cannot attach
   * (a microVM, a warden that is not root) ignore it, and their handles have no attachWork.
   */
  workSlot?: boolean;
}

export interface CellExit {
  code: number | null;
  signal: string | null;
  /** True when the cell stopped because it was asked to. */
  requested: boolean;
  reason: string;
  /** The last lines the cell's processes wrote to stderr (its console for a microVM): what node said. */
  stderr?: string;
}

export interface CellStats {
  backend: CellBackendName;
  userId: string;
  pid: number | undefined;
  startedAt: string;
  uptimeMs: number;
  /** Resident memory of the cell's host processes (the QEMU process for a microVM). */
  hostRssBytes: number;
  channel: PeerStats;
}

/** A running cell. Requests go through the protocol peer; events are every message the guest sends. */
export interface CellHandle {
  readonly userId: string;
  readonly backend: CellBackendName;
  readonly isolated: boolean;
  readonly peer: ProtocolPeer;
  /** The host process the backend started (bwrap's outer process, QEMU), when it started one. */
  readonly pid?: number | undefined;
  /** Restored from the memory it was suspended with (see suspend), not started afresh. */
  readonly resumed?: boolean | undefined;
  /** Resolves once the cell has exited, for whatever reason. */
  readonly exited: Promise<CellExit>;
  send(body: MessageBody): ProtocolMessage;
  request(body: MessageBody, options?: { timeoutMs?: number }): AsyncGenerator<ProtocolMessage>;
  call(body: MessageBody, options?: { timeoutMs?: number }): Promise<ProtocolMessage>;
  onEvent(listener: (message: ProtocolMessage) => void): () => void;
  /**
   * Graceful: closes the channel so the guest flushes its brain, then waits; forceful after the timeout. The
   * reason (default "stopped") is what the exit reports and what the guest is told. `discard`: nothing the guest
   * holds is kept (a command cell, whose folder goes with it), so an isolated cell is killed at once, without the
   * grace (the process backend, whose children would outlive that, still stops gracefully).
   */
  stop(options?: { timeoutMs?: number; reason?: string; discard?: boolean }): Promise<CellExit>;
  /**
   * Where the backend can (microVM): saves the running cell to its user's directory and ends it, so that its
   * next start resumes it where it was instead of starting it afresh. Undefined when it could not; the cell
   * then runs on, and a stop is the way to end it.
   */
  suspend?(): Promise<CellExit | undefined>;
  /**
   * Where the cell was started with a work slot and its backend can (bwrap under a root warden): binds the host
   * directory `hostDir` read-write at /mnt/brain/work, with its `.git` masked by a read-only empty file so the
   * cell never reaches the repository's git directory, and hands its files to the cell's uid. Once per cell.
   * The host must not read the directory as trusted again before the cell has exited.
   */
  attachWork?(hostDir: string): Promise<void>;
  stats(): Promise<CellStats>;
}

/** A pool cell started before its user is known: no brain, no user, its runtime loaded and waiting. */
export interface BlankCellSpec {
  /** IRONCLAW_HOME/users: where the pool keeps the next free uid, beside the users' directories. */
  usersDir: string;
  handler?: GuestHandlerName;
  maxFrameBytes?: number;
  heartbeatMs?: number;
  startTimeoutMs?: number;
}

export interface BlankCell {
  /** The running cell under a stand-in user id (`pool-…`), for stopping it and watching it exit. */
  readonly cell: CellHandle;
  /**
   * Hands the cell to a user: their brain is attached where the runtime expects it, the cell's cgroup takes
   * their name, and a Hello names them to the runtime. Returns the cell as theirs. Throws (CellStartError)
   * when it cannot, e.g. their brain is in use or over its quota; the cell is then of no use to anyone.
   */
  assign(spec: CellStartSpec): Promise<CellHandle>;
}

export interface CellBackend {
  readonly name: CellBackendName;
  /** False only for `process`: nothing stands between the agent and the host. */
  readonly isolated: boolean;
  /** Whether its idle cells are suspended (saved to disk, resumed on next use) rather than stopped. */
  readonly suspends?: boolean;
  start(spec: CellStartSpec): Promise<CellHandle>;
  /** Only where a running cell can be given its brain later (bwrap under a root warden). */
  startBlank?(spec: BlankCellSpec): Promise<BlankCell>;
}

export class CellStartError extends Error {
  override readonly name: string = "CellStartError";
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** User ids become directory and socket names, so they are held to the same rule as other names. */
export function assertUserId(userId: string): void {
  if (!USER_ID.test(userId)) {
    throw new CellStartError(
      `user id ${JSON.stringify(userId)} must start with a letter or digit and use only letters, digits, - and _`,
    );
  }
}
