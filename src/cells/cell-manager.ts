import { join } from "node:path";
import type { MessageBody } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import { Emitter } from "../core/index.js";
import { settleSpareCopies } from "./brain-disk.js";
import {
  type CellBackend,
  type CellExit,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "./cell.js";
import { describeCellExit } from "./cell-exit.js";
import type { WarmPool } from "./warm-pool.js";

/** `requested`: a stop asked for (an admin, `ironclaw cell stop`); `shutdown`: the warden is ending. */
export type StopReason = "requested" | "idle" | "shutdown";

export type CellEvent =
  | { kind: "started"; userId: string; warm: boolean; resumed: boolean }
  /** `suspended`: saved to disk rather than stopped; its next start resumes it (CellHandle.suspend). */
  | { kind: "stopped"; userId: string; why: StopReason; suspended: boolean }
  | { kind: "crashed"; userId: string; exit: CellExit }
  | { kind: "restarted"; userId: string; attempt: number }
  /** `retryAt`: when the user's next message may start it again (release() starts it sooner). */
  | { kind: "gave_up"; userId: string; error: string; exit?: CellExit; retryAt?: string };

export interface CellManagerOptions {
  backend: CellBackend;
  /** IRONCLAW_HOME/users: each user's cell keeps its brain under users/<uid>/. */
  usersDir: string;
  spec?: Partial<CellStartSpec>;
  /** Per-user additions to `spec`, such as the host uid the user's cell runs as. */
  specFor?: (userId: string) => Partial<CellStartSpec>;
  warmPool?: WarmPool;
  /** Stop a cell after this long without traffic; 0 keeps cells running. */
  idleStopMs?: number;
  /** Crash restarts allowed within restartWindowMs before the manager gives up on a user. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /**
   * After giving up, how long the user's cell is not started again (default 5 min), doubled with each give-up
   * in a row up to 1 h: a brain that aborts every start must not burn a core. release() ends it at once.
   */
  crashCooldownMs?: number;
}

/** How a user's cell last crashed, and whether the manager has given up on it for now. */
export interface CellFailure {
  exit: CellExit;
  at: string;
  /** Crashes within the restart window, this one included. */
  crashes: number;
  /** Set while given up: no start before this time (ISO), unless released. */
  retryAt?: string;
  /** Give-ups in a row, for the cooldown's backoff. */
  giveUps: number;
}

/** The user's cell kept crashing and is not started again before `failure.retryAt` (see CellManager.release). */
export class CellCrashLoopError extends CellStartError {
  override readonly name = "CellCrashLoopError";
  constructor(
    readonly userId: string,
    readonly failure: CellFailure & { retryAt: string },
  ) {
    super(
      `the cell of ${userId} crashed ${failure.crashes} times in a row, last ${describeCellExit(failure.exit)}; not started again before ${failure.retryAt}`,
    );
  }
}

export interface CellInfo {
  userId: string;
  backend: string;
  restarts: number;
}

interface Entry {
  cell: CellHandle;
  idle: NodeJS.Timeout | undefined;
  crashes: number[];
  stopping: boolean;
  /** Settles once a stop (or suspend) of this cell has ended and the entry is gone. */
  stopped?: Promise<void>;
}

/**
 * The warden's view of cells: one per user, started on demand (from the warm pool when one is waiting),
 * stopped when idle, restarted after a crash with the brain as it was on disk, stopped gracefully on shutdown.
 */
export class CellManager {
  private readonly entries = new Map<string, Entry>();
  private readonly starting = new Map<string, Promise<CellHandle>>();
  private readonly events = new Emitter<[CellEvent]>();
  private readonly failures = new Map<string, CellFailure>();
  private closing = false;

  constructor(private readonly options: CellManagerOptions) {}

  onEvent(listener: (event: CellEvent) => void): () => void {
    return this.events.on(listener);
  }

  /** The user's running cell, starting it when there is none. Concurrent callers share one start. */
  async get(userId: string): Promise<CellHandle> {
    let entry = this.entries.get(userId);
    // A cell being stopped or suspended still holds its brain: its successor starts once it has let go,
    // instead of failing on the brain's lock (or, for a suspend, booting beside the save being written).
    while (entry?.stopping && entry.stopped) {
      await entry.stopped;
      entry = this.entries.get(userId);
    }
    if (entry && !entry.stopping) {
      this.touch(userId);
      return entry.cell;
    }
    const pending = this.starting.get(userId);
    if (pending) return pending;
    const failure = this.failures.get(userId);
    if (failure?.retryAt !== undefined) {
      if (Date.parse(failure.retryAt) > Date.now())
        throw new CellCrashLoopError(userId, { ...failure, retryAt: failure.retryAt });
      // The cooldown is over: one more try, with a fresh count of crashes (the backoff remembers give-ups).
      const { retryAt: _, ...cooled } = failure;
      this.failures.set(userId, { ...cooled, crashes: 0 });
    }
    const start = this.launch(userId, []).finally(() => this.starting.delete(userId));
    this.starting.set(userId, start);
    return start;
  }

  /** Sends a request to the user's cell (started if needed) and yields its replies. */
  async *request(
    userId: string,
    body: MessageBody,
    options: { timeoutMs?: number } = {},
  ): AsyncGenerator<ProtocolMessage> {
    const cell = await this.get(userId);
    for await (const reply of cell.request(body, options)) {
      this.touch(userId);
      yield reply;
    }
  }

  list(): CellInfo[] {
    return [...this.entries.entries()].map(([userId, e]) => ({
      userId,
      backend: e.cell.backend,
      restarts: e.crashes.length,
    }));
  }

  cell(userId: string): CellHandle | undefined {
    return this.entries.get(userId)?.cell;
  }

  /** How the user's cell last crashed (until it stops normally or is released), and whether it is held. */
  failure(userId: string): CellFailure | undefined {
    return this.failures.get(userId);
  }

  /**
   * Forgets the user's crashes and ends a give-up's cooldown: their next get() starts a cell at once. What an
   * admin's restart does, after fixing what made it crash (or to try again).
   */
  release(userId: string): boolean {
    return this.failures.delete(userId);
  }

  /**
   * Graceful stop: the guest flushes its brain database before it exits. No restart follows. An idle cell, and
   * every cell when the warden ends, is suspended instead where its backend can (CellHandle.suspend): the
   * user's next message resumes it where it was, also after a warden restart.
   */
  async stop(userId: string, why: StopReason = "requested"): Promise<CellExit | undefined> {
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    if (entry.stopping && entry.stopped) {
      await entry.stopped;
      return undefined;
    }
    entry.stopping = true;
    let settle = () => {};
    entry.stopped = new Promise<void>((resolve) => {
      settle = resolve;
    });
    if (entry.idle) clearTimeout(entry.idle);
    let suspended: CellExit | undefined;
    let exit: CellExit;
    try {
      suspended = why !== "requested" ? await entry.cell.suspend?.() : undefined;
      exit = suspended ?? (await entry.cell.stop());
    } finally {
      if (this.entries.get(userId) === entry) this.entries.delete(userId);
      settle();
    }
    // A cell that ran until it was stopped is healthy again: its crash history ends here.
    if (why !== "shutdown") this.failures.delete(userId);
    this.emit({ kind: "stopped", userId, why, suspended: suspended !== undefined });
    return exit;
  }

  async stopAll(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.starting.values()]);
    await Promise.allSettled([...this.entries.keys()].map((u) => this.stop(u, "shutdown")));
    await this.options.warmPool?.drain();
    await settleSpareCopies();
  }

  private async launch(userId: string, crashes: number[]): Promise<CellHandle> {
    const spec = {
      ...this.options.spec,
      ...this.options.specFor?.(userId),
      userId,
      userDir: join(this.options.usersDir, userId),
    };
    // After a crash the next cell starts cold: a pool cell would only hide why the last one died.
    const pool = crashes.length === 0 ? this.options.warmPool : undefined;
    const warm = pool?.take(userId) ?? (await pool?.takeBlank(spec));
    const cell = warm ?? (await this.options.backend.start(spec));
    const entry: Entry = { cell, idle: undefined, crashes, stopping: false };
    this.entries.set(userId, entry);
    this.touch(userId);
    cell.onEvent(() => this.touch(userId));
    void cell.exited.then((exit) => this.exited(userId, entry, exit));
    this.emit({ kind: "started", userId, warm: warm !== undefined, resumed: cell.resumed === true });
    return cell;
  }

  private exited(userId: string, entry: Entry, exit: CellExit): void {
    if (entry.idle) clearTimeout(entry.idle);
    if (entry.stopping || exit.requested || this.closing) return;
    if (this.entries.get(userId) === entry) this.entries.delete(userId);
    this.emit({ kind: "crashed", userId, exit });
    const window = this.options.restartWindowMs ?? 60_000;
    const now = Date.now();
    const recent = [...entry.crashes.filter((t) => now - t < window), now];
    const before = this.failures.get(userId);
    const failure: CellFailure = {
      exit,
      at: new Date(now).toISOString(),
      crashes: recent.length,
      giveUps: before?.giveUps ?? 0,
    };
    this.failures.set(userId, failure);
    // After a cooldown the cell has one try: crashing again gives up again, for twice as long.
    if (recent.length > (this.options.maxRestarts ?? 3) || failure.giveUps > 0) {
      this.hold(
        userId,
        failure,
        `${recent.length} crashes within ${window} ms, the last ${describeCellExit(exit)}`,
      );
      return;
    }
    const restart = this.launch(userId, recent)
      .then(() => this.emit({ kind: "restarted", userId, attempt: recent.length }))
      // A cell that crashed and then cannot even start is held as well: its user's messages would only retry it.
      .catch((error: Error) => this.hold(userId, failure, `restart after a crash failed: ${error.message}`))
      .finally(() => this.starting.delete(userId));
    this.starting.set(
      userId,
      restart.then(() => this.get(userId)),
    );
  }

  /** Gives up on the user's cell for a cooldown that doubles with each give-up in a row (see crashCooldownMs). */
  private hold(userId: string, failure: CellFailure, error: string): void {
    const cooldown = Math.min(
      (this.options.crashCooldownMs ?? 5 * 60_000) * 2 ** failure.giveUps,
      Math.max(this.options.crashCooldownMs ?? 0, 3_600_000),
    );
    failure.retryAt = new Date(Date.now() + cooldown).toISOString();
    failure.giveUps++;
    this.emit({ kind: "gave_up", userId, error, exit: failure.exit, retryAt: failure.retryAt });
  }

  private touch(userId: string): void {
    const entry = this.entries.get(userId);
    const idleMs = this.options.idleStopMs ?? 15 * 60_000;
    if (!entry || idleMs <= 0) return;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => void this.stop(userId, "idle"), idleMs);
    entry.idle.unref();
  }

  private emit(event: CellEvent): void {
    this.events.emit(event);
  }
}
