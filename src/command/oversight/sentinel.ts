import type { Clock } from "../../agent/index.js";
import type { AuditData, LedgerEventInput } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import { EventIdConflictError, type EventStore, type OrderSnapshot } from "../../ledger/index.js";
import { readOrderView } from "../co/run-views.js";
import type { ActiveOrders } from "./active-orders.js";
import { stallOf } from "./order-findings.js";
import { PatrolTicks } from "./patrol-ticks.js";
import { type AuditSample, INEFFECTIVE_WINDOW, trendOf, verdictOf } from "./sentinel-verdict.js";

export interface SentinelOptions {
  clock: Clock;
  store: EventStore;
  orders: ActiveOrders;
  garrisonId: string;
  /** The duty officer's period; 0 when it ticks only on request (it is then never judged dead). */
  patrolMs: number;
  /** When an order at work is overdue (as the duty officer judges a stall). */
  stallAfterMs: number;
  /** Only this duty officer's ticks count and only it is restarted; absent: any duty officer's ticks. */
  dutyOfficerId?: string;
  /** Restarts the duty officer; absent where this process cannot, and an audit then only escalates. */
  restartDutyOfficer?: () => Promise<void>;
  logger?: Logger;
}

/**
 * The sentinel (seed 000 §3.9): confirms the duty officer is alive and effective. An audit reads the last
 * PATROL_TICK and the overdue orders a working duty officer would have reissued; when the duty officer is dead or
 * ineffective it raises ESCALATION_RAISED CRITICAL once per incident (the event_id names the incident: the last
 * tick before the silence, or the oldest order left overdue) and restarts it where it can, with RECOVERY_STARTED
 * at the request and RECOVERY_COMPLETED at the first tick after it.
 */
export class Sentinel {
  private readonly ticks: PatrolTicks;
  private readonly watchingSince: number;
  private samples: AuditSample[] = [];
  private readonly restarts: Array<{ incident: string; position: number }> = [];
  private timer: unknown;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: SentinelOptions) {
    this.ticks = new PatrolTicks(options.store, options.dutyOfficerId);
    this.watchingSince = options.clock.now();
  }

  async audit(): Promise<AuditData> {
    const now = this.options.clock.now();
    await this.ticks.catchUp();
    const overdue = await this.overdue(now);
    this.samples = [...this.samples, { backlog: overdue.length, ticks: this.ticks.count }].slice(
      -INEFFECTIVE_WINDOW,
    );
    await this.completeRestarts();
    const last = this.ticks.last;
    const verdict = verdictOf({
      now,
      patrolMs: this.options.patrolMs,
      lastTickAt: last?.at,
      watchingSince: this.watchingSince,
      samples: this.samples,
    });
    const who = this.options.dutyOfficerId ?? "any";
    const oldest = overdue[0];
    const incident =
      verdict === "dead"
        ? `sentinel.${who}.dead.${last?.eventId ?? "never"}`
        : oldest && `sentinel.${who}.ineffective.${oldest.order_id}.${oldest.attempt}`;
    const reason =
      verdict === "dead"
        ? `no PATROL_TICK since ${last ? new Date(last.at).toISOString() : "the sentinel started"}`
        : `${overdue.length} overdue orders and rising across ${INEFFECTIVE_WINDOW} audits while it ticks`;
    const escalated = verdict !== "healthy" && incident ? await this.raise(incident, verdict, reason) : false;
    return {
      audited_at: new Date(now).toISOString(),
      last_patrol_at: last ? new Date(last.at).toISOString() : null,
      backlog: overdue.length,
      backlog_trend: trendOf(this.samples),
      verdict,
      escalated,
    };
  }

  /** Audits every `periodMs`, the next one `periodMs` after the last ended, until stop(). */
  start(periodMs: number): void {
    if (this.stopped || periodMs <= 0) return;
    this.timer = this.options.clock.setTimer(() => {
      this.running = this.audit()
        .catch((error: unknown) => this.options.logger?.error({ err: error }, "a sentinel audit failed"))
        .finally(() => this.start(periodMs));
    }, periodMs);
  }

  /** Resolves once the audit under way, if any, has ended. */
  async idle(): Promise<void> {
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    await this.running;
  }

  /** Orders at work past their stall limit with a retry left: what a working duty officer reissues at once. */
  private async overdue(now: number): Promise<OrderSnapshot[]> {
    const found: OrderSnapshot[] = [];
    for (const order of await this.options.orders.list()) {
      if (order.status !== "CLAIMED" && order.status !== "RUNNING") continue;
      const { plan } = await readOrderView(this.options.store, order.order_id);
      if (stallOf(order, plan, now, this.options.stallAfterMs)?.reissuable) found.push(order);
    }
    const since = (o: OrderSnapshot) => o.started_at ?? o.updated_at;
    return found.sort((a, b) => since(a).localeCompare(since(b)) || a.order_id.localeCompare(b.order_id));
  }

  /** Raises the incident's escalation; only the audit that stored it first restarts the duty officer. */
  private async raise(incident: string, verdict: string, reason: string): Promise<boolean> {
    const subject = { subject: "duty_officer", duty_officer: this.options.dutyOfficerId ?? null };
    const check = `duty_officer_${verdict}`;
    const payload = { severity: "CRITICAL", route: "admin", check, reason, ...subject };
    if (!(await this.appendOnce(incident, "ESCALATION_RAISED", payload))) return false;
    this.options.logger?.error({ incident, reason }, `the duty officer is ${verdict}`);
    const restart = this.options.restartDutyOfficer;
    if (!restart) return true;
    const started = await this.appendOnce(`${incident}.restart`, "RECOVERY_STARTED", { ...subject, reason });
    if (!started) return true;
    try {
      await restart();
      // Ticks already in the ledger may be the old duty officer's last: only one after this counts.
      this.restarts.push({ incident, position: await this.options.store.head() });
    } catch (error) {
      this.options.logger?.error({ err: error, incident }, "the duty officer could not be restarted");
    }
    return true;
  }

  /** A restart is complete once the duty officer has ticked after it. */
  private async completeRestarts(): Promise<void> {
    const last = this.ticks.last;
    for (const restart of [...this.restarts]) {
      if (!last || last.position <= restart.position) continue;
      const payload = {
        subject: "duty_officer",
        duty_officer: this.options.dutyOfficerId ?? null,
        first_patrol_at: new Date(last.at).toISOString(),
      };
      await this.appendOnce(`${restart.incident}.restart.completed`, "RECOVERY_COMPLETED", payload);
      this.restarts.splice(this.restarts.indexOf(restart), 1);
    }
  }

  /** Appends a system-wide incident event under a fixed id; false when it was already stored (by anyone). */
  private async appendOnce(
    eventId: string,
    type: LedgerEventInput["type"],
    payload: Record<string, unknown>,
  ): Promise<boolean> {
    const event = {
      event_id: eventId,
      garrison_id: this.options.garrisonId,
      theater_id: null,
      run_id: null,
      order_id: null,
      unit_id: null,
      type,
      payload,
    };
    try {
      return !(await this.options.store.append(event)).duplicate;
    } catch (error) {
      // Another sentinel stored this incident first, in its own words.
      if (error instanceof EventIdConflictError) return false;
      throw error;
    }
  }
}
