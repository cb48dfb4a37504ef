import { join } from "node:path";
import type { BlankCell, CellBackend, CellHandle, CellStartSpec } from "./cell.js";

export interface WarmPoolOptions {
  backend: CellBackend;
  usersDir: string;
  /** How many cells may wait pre-booted for their users at once. */
  size: number;
  spec?: Partial<CellStartSpec>;
  /**
   * How many blank cells to keep ready for users who have no warm cell of their own (backends with
   * startBlank: bwrap under a root warden). Default 0.
   */
  blank?: number;
  /**
   * Start another blank cell as soon as one is handed out (default). Off: the caller refills (prewarmBlank)
   * when it suits it, such as once the handed-out cell has answered, so the two do not compete for the CPU.
   */
  refillOnTake?: boolean;
  /** Told why a blank cell could not start (the pool stays short until the next hand-out asks again). */
  onBlankError?: (error: Error) => void;
}

/**
 * Pre-booted cells for the users expected next (recently active, or everyone on a small host), handed out
 * on their first message without waiting for a boot. A cell carries its user's brain from boot, so a warm
 * cell belongs to one user; one that dies while waiting is simply dropped. Blank cells (see BlankCell) serve
 * everyone else: their runtime is up, and handing one out attaches the user's brain; the pool then starts
 * another.
 */
export class WarmPool {
  private readonly ready = new Map<string, CellHandle>();
  private readonly booting = new Map<string, Promise<void>>();
  private readonly blanks: BlankCell[] = [];
  private readonly blankBoots = new Set<Promise<void>>();
  private draining = false;

  constructor(private readonly options: WarmPoolOptions) {}

  /** Starts cells for the first users (in order) that are not warm yet, up to the pool size. */
  async prewarm(userIds: string[]): Promise<void> {
    const wanted = userIds.filter((u) => !this.ready.has(u) && !this.booting.has(u));
    const room = Math.max(0, this.options.size - this.ready.size - this.booting.size);
    await Promise.all(wanted.slice(0, room).map((user) => this.boot(user)));
  }

  /** The user's warm cell, now owned by the caller, or undefined. Never waits for a boot. */
  take(userId: string): CellHandle | undefined {
    const cell = this.ready.get(userId);
    if (!cell || cell.peer.isClosed) return undefined;
    this.ready.delete(userId);
    return cell;
  }

  /** Starts blank cells until `blank` of them are ready or booting; resolves once every boot under way has ended. */
  async prewarmBlank(): Promise<void> {
    const { backend } = this.options;
    const wanted = (this.options.blank ?? 0) - this.blanks.length - this.blankBoots.size;
    if (backend.startBlank && !this.draining) {
      for (let i = 0; i < wanted; i++) {
        const boot = this.bootBlank(backend.startBlank.bind(backend)).finally(() =>
          this.blankBoots.delete(boot),
        );
        this.blankBoots.add(boot);
      }
    }
    await Promise.all([...this.blankBoots]);
  }

  private async bootBlank(start: NonNullable<CellBackend["startBlank"]>): Promise<void> {
    const spec = this.options.spec ?? {};
    try {
      const blank = await start({
        usersDir: this.options.usersDir,
        ...(spec.handler ? { handler: spec.handler } : {}),
        ...(spec.maxFrameBytes ? { maxFrameBytes: spec.maxFrameBytes } : {}),
        ...(spec.heartbeatMs ? { heartbeatMs: spec.heartbeatMs } : {}),
        ...(spec.startTimeoutMs ? { startTimeoutMs: spec.startTimeoutMs } : {}),
      });
      if (this.draining) {
        await blank.cell.stop();
        return;
      }
      this.blanks.push(blank);
      void blank.cell.exited.then(() => {
        const at = this.blanks.indexOf(blank);
        if (at >= 0) this.blanks.splice(at, 1);
      });
    } catch (error) {
      // The pool stays short; users then start cold, where the reason is reported too.
      this.options.onBlankError?.(error as Error);
    }
  }

  /**
   * A blank cell handed to this user, or undefined when none is ready or the hand-out failed (their brain in
   * use, say): the caller then starts the cell cold and learns why there. Never waits for a boot.
   */
  async takeBlank(spec: CellStartSpec): Promise<CellHandle | undefined> {
    const blank = this.blanks.shift();
    const refill = this.options.refillOnTake ?? true;
    if (!blank) {
      // Empty because boots failed or cells died while waiting: the next user may find one again. Asked
      // here rather than on each failure, so a host that cannot start blank cells does not retry in a loop.
      if (refill) void this.prewarmBlank();
      return undefined;
    }
    try {
      return await blank.assign(spec);
    } catch {
      await blank.cell.stop({ timeoutMs: 2_000 });
      return undefined;
    } finally {
      // Refilled after the hand-out, so the next start does not compete with this one.
      if (refill) void this.prewarmBlank();
    }
  }

  get blankCount(): number {
    return this.blanks.length;
  }

  /** Whether a cell for this user is booting right now (the caller may prefer to wait for it). */
  bootingFor(userId: string): Promise<void> | undefined {
    return this.booting.get(userId);
  }

  get warmUsers(): string[] {
    return [...this.ready.keys()];
  }

  async drain(): Promise<void> {
    this.draining = true;
    await Promise.allSettled([...this.booting.values(), ...this.blankBoots]);
    const cells = [...this.ready.values(), ...this.blanks.map((b) => b.cell)];
    this.ready.clear();
    this.blanks.length = 0;
    await Promise.allSettled(cells.map((c) => c.stop()));
  }

  private boot(userId: string): Promise<void> {
    const started = this.options.backend
      .start({ ...this.options.spec, userId, userDir: join(this.options.usersDir, userId) })
      .then(
        (cell) => {
          this.ready.set(userId, cell);
          void cell.exited.then(() => {
            if (this.ready.get(userId) === cell) this.ready.delete(userId);
          });
        },
        () => undefined, // a cell that cannot boot now is booted cold on demand, where the error is reported
      )
      .finally(() => this.booting.delete(userId));
    this.booting.set(userId, started);
    return started;
  }
}
