import { join } from "node:path";
import type { CellBackend, CellHandle, CellStartSpec } from "./cell.js";

export interface WarmPoolOptions {
  backend: CellBackend;
  usersDir: string;
  /** How many cells may wait pre-booted at once. */
  size: number;
  spec?: Partial<CellStartSpec>;
}

/**
 * Pre-booted cells for the users expected next (recently active, or everyone on a small host), handed out
 * on their first message without waiting for a boot. A cell carries its user's brain from boot, so a warm
 * cell belongs to one user; one that dies while waiting is simply dropped.
 */
export class WarmPool {
  private readonly ready = new Map<string, CellHandle>();
  private readonly booting = new Map<string, Promise<void>>();

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

  /** Whether a cell for this user is booting right now (the caller may prefer to wait for it). */
  bootingFor(userId: string): Promise<void> | undefined {
    return this.booting.get(userId);
  }

  get warmUsers(): string[] {
    return [...this.ready.keys()];
  }

  async drain(): Promise<void> {
    await Promise.allSettled([...this.booting.values()]);
    const cells = [...this.ready.values()];
    this.ready.clear();
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
