import { ConflictError } from "../core/index.js";

/**
 * Per user: how many turns are being answered, and a hold that keeps new turns waiting while the host writes the
 * brain itself (a restore of an earlier state). A hold is refused while a turn runs, so that no answer is cut off
 * and no turn's writes cross the restore's; turns that arrive during a hold start once it ends.
 */
export class BrainHolds {
  private readonly running = new Map<string, number>();
  private readonly holds = new Map<string, Promise<void>>();

  /** Waits out a hold of the user's brain, then counts a turn as running until the function it returns is called. */
  async enterTurn(userId: string): Promise<() => void> {
    for (let hold = this.holds.get(userId); hold !== undefined; hold = this.holds.get(userId)) await hold;
    this.running.set(userId, (this.running.get(userId) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const still = (this.running.get(userId) ?? 1) - 1;
      if (still > 0) this.running.set(userId, still);
      else this.running.delete(userId);
    };
  }

  turnsRunning(userId: string): number {
    return this.running.get(userId) ?? 0;
  }

  /** Runs `work` with no turn of the user running and none starting until it ends. */
  async hold<T>(userId: string, work: () => Promise<T>): Promise<T> {
    if (this.holds.has(userId))
      throw new ConflictError("the brain is already being restored: try again once that is done");
    const turns = this.turnsRunning(userId);
    if (turns > 0)
      throw new ConflictError(
        `the brain is in use: ${turns === 1 ? "a turn is" : `${turns} turns are`} being answered; try again once the answer is done`,
      );
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.holds.set(userId, held);
    try {
      return await work();
    } finally {
      this.holds.delete(userId);
      release();
    }
  }
}
