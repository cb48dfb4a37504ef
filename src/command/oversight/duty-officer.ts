import type { Clock } from "../../agent/index.js";
import type { PatrolData } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import type { EventStore } from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import type { ActiveOrders } from "./active-orders.js";
import type { Observer } from "./observer.js";
import type { OversightContext, PatrolRequestOptions, ServiceProbe } from "./oversight-options.js";
import { completeRecovery, reissueOrder, unfinishedRecoveries } from "./reissue.js";
import { ServiceHealth } from "./service-health.js";

export interface DutyOfficerOptions extends OversightContext {
  clock: Clock;
  store: EventStore;
  queue: JobQueue;
  observer: Observer;
  orders: ActiveOrders;
  probes: readonly ServiceProbe[];
  /** Where an order's worktree is, for the job of a reissued attempt (as the CO names it). */
  theaterWorktreePath(theaterId: string, orderId: string): string;
  /** Named in each PATROL_TICK, so a ledger shared by several hosts says whose tick it was. */
  id: string;
  logger?: Logger;
}

/**
 * The duty officer (seed 000 §3.8): one tick probes the services command depends on (SERVICE_DEGRADED and
 * SERVICE_RECOVERED on each change), finishes recoveries a crash cut short, has the observer patrol every theater,
 * reissues each stalled order that has a retry left, and ends with a PATROL_TICK saying what it did. It never
 * touches an order that is over or already reissued for the attempt it saw: a reissue expects the order's version.
 */
export class DutyOfficer {
  private readonly health: ServiceHealth;
  private timer: unknown;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private periodMs = 0;

  constructor(private readonly options: DutyOfficerOptions) {
    this.health = new ServiceHealth(options.store, options.garrisonId);
  }

  async tick(request: PatrolRequestOptions = {}): Promise<PatrolData> {
    const { clock, store, observer, orders } = this.options;
    const ticked_at = new Date(clock.now()).toISOString();
    const dryRun = request.dryRun === true;
    const health = await this.health.check(this.options.probes, dryRun);
    let emitted = health.emitted;
    if (!dryRun) emitted += await this.finishRecoveries();

    const patrol = await observer.patrol(undefined, request);
    emitted += patrol.emitted;
    const findings = patrol.findings.map((f) => ({
      check: f.check,
      order_id: f.order.order_id,
      detail: f.detail,
    }));
    const reissued: string[] = [];
    for (const stall of patrol.findings) {
      if (stall.check !== "stalled_order" || !stall.reissuable) continue;
      const { order_id, attempt } = stall.order;
      const plan = await observer.planOf(order_id);
      const order = await store.getOrder(order_id);
      // Moved on since the patrol looked (finished, or reissued by another duty officer or a worker).
      if (!plan || !order || order.attempt !== attempt || !["CLAIMED", "RUNNING"].includes(order.status))
        continue;
      const reason = `overdue: ${stall.detail}`;
      findings.push({ check: "overdue_order", order_id, detail: reason });
      if (dryRun) continue;
      const stored = await reissueOrder(this.context(), order, plan, reason);
      if (stored > 0) reissued.push(order_id);
      emitted += stored;
    }
    if (!dryRun) {
      await store.append({
        garrison_id: this.options.garrisonId,
        theater_id: null,
        run_id: null,
        order_id: null,
        unit_id: null,
        type: "PATROL_TICK",
        // By this duty officer's clock, which the sentinel judges its silence by.
        ts: new Date(clock.now()).toISOString(),
        payload: {
          duty_officer: this.options.id,
          orders_watched: (await orders.list()).length,
          findings: findings.length,
          reissued,
          failing: health.failing,
        },
      });
      emitted += 1;
    }
    return { ticked_at, findings, reissued_order_ids: reissued, events_emitted: emitted };
  }

  /** Ticks every `periodMs`, the next one `periodMs` after the last ended, until stop(). */
  start(periodMs: number): void {
    this.periodMs = periodMs;
    if (this.stopped || periodMs <= 0) return;
    this.timer = this.options.clock.setTimer(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.options.logger?.error({ err: error }, "a duty officer tick failed"))
        .finally(() => this.start(periodMs));
    }, periodMs);
  }

  /** Named in each PATROL_TICK: the sentinel watches this duty officer's ticks. */
  get id(): string {
    return this.options.id;
  }

  /** The sentinel's restart: stops whatever it was doing, ticks at once and then on its timer again. */
  async restart(): Promise<void> {
    await this.stop();
    this.stopped = false;
    this.running = this.tick()
      .catch((error: unknown) => this.options.logger?.error({ err: error }, "a duty officer tick failed"))
      .finally(() => this.start(this.periodMs));
  }

  /** Resolves once the tick under way, if any, has ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Stops ticking; resolves once the tick under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    await this.running;
  }

  private context() {
    const { store, queue, garrisonId, theaterWorktreePath } = this.options;
    return { store, queue, garrisonId, theaterWorktreePath };
  }

  /** Reissued orders whose recovery never completed (a crash between reissue and enqueue) are queued now. */
  private async finishRecoveries(): Promise<number> {
    let stored = 0;
    for (const order of await this.options.orders.list()) {
      if (order.status !== "QUEUED" || order.attempt < 2) continue;
      const plan = await this.options.observer.planOf(order.order_id);
      if (!plan) continue;
      for (const attempt of await unfinishedRecoveries(this.options.store, order.order_id))
        stored += await completeRecovery(this.context(), order.order_id, attempt, plan);
    }
    return stored;
  }
}
