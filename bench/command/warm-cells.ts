// Command's cells, warm: a cell for an order (or its gate) started before the order is timed and handed out when
// the worker or the gate asks for it, as a warm pool would. Every handle given out is wrapped so that the time
// spent in each kind of call (the agent's turn, the gate's run, the tree in and out) adds up into step figures.
import type { CellHandle } from "../../src/cells/index.js";
import type { CommandCellSpec, CommandCells } from "../../src/command/index.js";

export type Step =
  | "cellHandOut"
  | "cellRelease"
  | "treeIn"
  | "treeOut"
  | "agentTurn"
  | "gateRun"
  | "worktreeOpen"
  | "commit";

/**
 * Wall-clock milliseconds per step since the last take. Calls of one step that overlap (a tree's writes are
 * several in flight at once) count once: a step's time runs from its first call starting to its last ending.
 */
export class StepClock {
  private sums = new Map<Step, number>();
  private readonly open = new Map<Step, { calls: number; since: number }>();

  begin(step: Step): void {
    const open = this.open.get(step);
    if (open) open.calls += 1;
    else this.open.set(step, { calls: 1, since: performance.now() });
  }

  end(step: Step): void {
    const open = this.open.get(step);
    if (!open) return;
    open.calls -= 1;
    if (open.calls > 0) return;
    this.open.delete(step);
    this.sums.set(step, (this.sums.get(step) ?? 0) + performance.now() - open.since);
  }

  async time<T>(step: Step, work: () => Promise<T>): Promise<T> {
    this.begin(step);
    try {
      return await work();
    } finally {
      this.end(step);
    }
  }

  take(): Record<Step, number> {
    const out = Object.fromEntries(this.sums) as Record<Step, number>;
    this.sums = new Map();
    return out;
  }
}

const keyOf = (spec: Pick<CommandCellSpec, "purpose" | "orderId">) => `${spec.purpose}-${spec.orderId}`;

export class WarmCells implements CommandCells {
  private readonly ready = new Map<string, Promise<CellHandle>>();
  private readonly inner = new Map<CellHandle, CellHandle>();
  /** Cold start to greeted, per cell started ahead. */
  readonly startMs: number[] = [];
  /** Cells asked for that were not started ahead (started cold, on the timed path). */
  misses = 0;

  constructor(
    private readonly cells: CommandCells,
    private readonly clock: StepClock,
  ) {}

  /** Starts the cell `spec` will ask for, untimed; resolves once it is ready. */
  async prewarm(spec: CommandCellSpec): Promise<void> {
    const started = performance.now();
    const cell = this.cells.start(spec);
    this.ready.set(keyOf(spec), cell);
    await cell;
    this.startMs.push(performance.now() - started);
  }

  async start(spec: CommandCellSpec): Promise<CellHandle> {
    return this.clock.time("cellHandOut", async () => {
      const warm = this.ready.get(keyOf(spec));
      this.ready.delete(keyOf(spec));
      if (!warm) this.misses += 1;
      const cell = await (warm ?? this.cells.start(spec));
      const timed = this.timed(cell, spec.purpose);
      this.inner.set(timed, cell);
      return timed;
    });
  }

  async release(cell: CellHandle): Promise<void> {
    const inner = this.inner.get(cell);
    if (!inner) return;
    this.inner.delete(cell);
    await this.clock.time("cellRelease", () => this.cells.release(inner));
  }

  /** The host's record of a spend-cap refusal, asked of the cell it really is (where the host keeps one). */
  spendRefusal(cell: CellHandle): string | undefined {
    const inner = this.inner.get(cell);
    const cells = this.cells as { spendRefusal?: (cell: CellHandle) => string | undefined };
    return inner ? cells.spendRefusal?.(inner) : undefined;
  }

  /** The handle with its calls timed: a UserMessage is the agent's turn or the gate's run, the rest transfers. */
  private timed(cell: CellHandle, purpose: CommandCellSpec["purpose"]): CellHandle {
    const clock = this.clock;
    // A write carries the tree in; lists and reads carry it back out.
    const stepOf = (body: { type: string; op?: unknown }): Step => {
      if (body.type === "UserMessage") return purpose === "gate" ? "gateRun" : "agentTurn";
      return body.op === "write" ? "treeIn" : "treeOut";
    };
    return new Proxy(cell, {
      get(target, property, receiver) {
        if (property === "call")
          return (body: Parameters<CellHandle["call"]>[0], options?: { timeoutMs?: number }) =>
            clock.time(stepOf(body), () => target.call(body, options));
        if (property === "request")
          return async function* (
            body: Parameters<CellHandle["request"]>[0],
            options?: { timeoutMs?: number },
          ) {
            clock.begin(stepOf(body));
            try {
              yield* target.request(body, options);
            } finally {
              clock.end(stepOf(body));
            }
          };
        // Attaching a folder is how the tree goes in where the backend can (no copy through the protocol).
        if (property === "attachWork" && target.attachWork) {
          const attach = target.attachWork.bind(target);
          return (hostDir: string) => clock.time("treeIn", () => attach(hostDir));
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}
