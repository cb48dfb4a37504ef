import { ConflictError, NotFoundError } from "../../src/core/index.js";
import type {
  CommandGateway,
  CommandNotify,
  CommandRunView,
  CommandStart,
} from "../../src/warden/command-gateway.js";

interface RunRecord {
  view: CommandRunView;
  start: CommandStart;
}

/**
 * A CommandGateway over an in-memory record, for the warden's tests: it keeps runs by owner as a real one must,
 * and posts their news through the warden's `notify` as a real one does when its run changes. A test plays
 * command by calling plan / integrate / failOrder / complete.
 */
export class MemoryCommandGateway implements CommandGateway {
  readonly starts: Array<{ userId: string; start: CommandStart }> = [];
  private readonly runs = new Map<string, RunRecord>();

  constructor(
    private readonly notify: CommandNotify,
    private readonly theaters: readonly string[] = ["demo"],
  ) {}

  async start(userId: string, start: CommandStart) {
    if (!this.theaters.includes(start.theaterId)) throw new NotFoundError("theater", start.theaterId);
    this.starts.push({ userId, start });
    const runId = `run_${this.runs.size + 1}`;
    this.runs.set(runId, {
      view: { runId, theaterId: start.theaterId, userId, status: "OPEN", orders: [] },
      start,
    });
    return { runId, status: "OPEN" as const };
  }

  async status(userId: string, runId: string) {
    const run = this.runs.get(runId);
    return run && run.view.userId === userId ? structuredClone(run.view) : undefined;
  }

  async cancel(userId: string, runId: string) {
    const run = this.runs.get(runId);
    if (!run || run.view.userId !== userId) return undefined;
    if (run.view.status !== "OPEN") throw new ConflictError(`run ${runId} is ${run.view.status} already`);
    run.view.status = "CANCELLED";
    this.post(run, "failure", `Run ${runId} was cancelled.`);
    return structuredClone(run.view);
  }

  plan(runId: string, titles: string[]): void {
    const run = this.record(runId);
    run.view.orders = titles.map((title, i) => ({ orderId: `order_${i + 1}`, title, status: "QUEUED" }));
    this.post(run, "progress", `Planned ${titles.length} orders: ${titles.join("; ")}.`);
  }

  integrate(runId: string, orderId: string): void {
    this.setOrder(runId, orderId, "COMPLETED", `Order ${orderId} was merged.`);
  }

  failOrder(runId: string, orderId: string, why: string): void {
    this.setOrder(runId, orderId, "FAILED", `Order ${orderId} failed: ${why}`);
  }

  complete(runId: string, reply: string): void {
    const run = this.record(runId);
    run.view.status = "COMPLETE";
    run.view.reply = reply;
    this.post(run, "reply", reply);
  }

  private setOrder(runId: string, orderId: string, status: "COMPLETED" | "FAILED", text: string): void {
    const run = this.record(runId);
    const order = run.view.orders.find((o) => o.orderId === orderId);
    if (!order) throw new Error(`no order ${orderId} in ${runId}`);
    order.status = status;
    this.post(run, "progress", text);
  }

  private post(run: RunRecord, kind: "progress" | "reply" | "failure", text: string): void {
    if (run.start.conversation)
      this.notify(run.view.userId, run.start.conversation, text, { kind, runId: run.view.runId });
  }

  private record(runId: string): RunRecord {
    const run = this.runs.get(runId);
    if (!run) throw new Error(`no run ${runId}`);
    return run;
  }
}
