import type { LedgerEventInput, PatrolData } from "../../contracts/index.js";
import {
  EventIdConflictError,
  type EventStore,
  type OrderSnapshot,
  StreamVersionConflictError,
} from "../../ledger/index.js";
import type { PlannedOrder } from "../co/planned-order.js";
import { readOrderView } from "../co/run-views.js";
import type { TheaterRecord } from "../vault/theaters.js";
import type { ActiveOrders } from "./active-orders.js";
import { cutOffIntegration } from "./cut-off.js";
import { type Finding, inspectOrder } from "./order-findings.js";
import type { OversightContext, PatrolRequestOptions } from "./oversight-options.js";

export interface ObserverOptions extends OversightContext {
  store: EventStore;
  theaters: { get(theaterId: string): Promise<TheaterRecord | undefined> };
  orders: ActiveOrders;
}

/** What one observer patrol found, which completed orders it declared ready, and how many events it appended. */
export interface ObserverPatrol {
  findings: Finding[];
  ready: string[];
  emitted: number;
}

/**
 * The observer (seed 000 §3.6): patrols a theater's orders for stalls, stale and dirty worktrees and completed
 * orders without a valid AAR or their artifacts, raising RECOVERY_REQUIRED or ESCALATION_RAISED for each, and
 * INTEGRATION_READY for a completed order that passes. A finding is raised once per order, check and attempt:
 * its event_id is made of those, so a second patrol over the same state, or two patrols at once, store it once.
 * Each append also expects the order's version as inspected, so nothing is raised about a state that moved on.
 */
export class Observer {
  private readonly plans = new Map<string, PlannedOrder | null>();

  constructor(private readonly options: ObserverOptions) {}

  /** One patrol over a theater's orders, or every theater's when none is named. */
  async patrol(theaterId: string | undefined, request: PatrolRequestOptions = {}): Promise<ObserverPatrol> {
    const { orders, clock, thresholds } = this.options;
    const now = clock.now();
    const limits = { ...thresholds, stallAfterMs: request.stallAfterMs ?? thresholds.stallAfterMs };
    const patrol: ObserverPatrol = { findings: [], ready: [], emitted: 0 };
    const theaters = new Map<string, TheaterRecord | undefined>();
    for (const order of await orders.list(theaterId)) {
      if (!theaters.has(order.theater_id))
        theaters.set(order.theater_id, await this.options.theaters.get(order.theater_id));
      const plan = await this.planOf(order.order_id);
      const inspection = await inspectOrder(order, plan, theaters.get(order.theater_id), now, limits);
      patrol.findings.push(...inspection.findings);
      if (inspection.ready) patrol.ready.push(order.order_id);
      const cut = await cutOffIntegration(this.options.store, order, now, thresholds.integrationStaleMs);
      if (cut)
        patrol.findings.push({
          check: "cut_off_integration",
          order,
          detail: cut.detail,
          raise: { type: "RECOVERY_REQUIRED" },
        });
      if (request.dryRun) continue;
      const events = inspection.findings.map((finding) => this.eventOf(finding));
      if (inspection.ready) events.push(this.readyEvent(order));
      const appended = await this.appendOnce(order, events);
      patrol.emitted += appended;
      if (cut) patrol.emitted += await this.appendTogether(order, order.version + appended, cut.events);
    }
    return patrol;
  }

  /** POST /theaters/{theater_id}/patrol: one patrol of a theater, answered as the patrol contract has it. */
  async patrolTheater(theaterId: string, request: PatrolRequestOptions = {}): Promise<PatrolData> {
    const ticked_at = new Date(this.options.clock.now()).toISOString();
    const patrol = await this.patrol(theaterId, request);
    return {
      ticked_at,
      findings: patrol.findings.map((f) => ({
        check: f.check,
        order_id: f.order.order_id,
        detail: f.detail,
      })),
      reissued_order_ids: [],
      events_emitted: patrol.emitted,
    };
  }

  /** The order as planned (its budget and retry cap), read once: ORDER_CREATED never changes. */
  async planOf(orderId: string): Promise<PlannedOrder | null> {
    if (!this.plans.has(orderId))
      this.plans.set(orderId, (await readOrderView(this.options.store, orderId)).plan);
    return this.plans.get(orderId) ?? null;
  }

  private base(order: OrderSnapshot) {
    return {
      garrison_id: this.options.garrisonId,
      theater_id: order.theater_id,
      run_id: order.run_id,
      order_id: order.order_id,
      unit_id: null,
    };
  }

  private eventOf(finding: Finding): LedgerEventInput {
    const { order, check, detail, raise } = finding;
    const facts = { reason: detail, check, attempt: order.attempt };
    return {
      ...this.base(order),
      event_id: `patrol.${order.order_id}.${check}.${order.attempt}`,
      type: raise.type,
      payload:
        raise.type === "ESCALATION_RAISED" ? { ...facts, severity: raise.severity, route: "owner" } : facts,
    };
  }

  private readyEvent(order: OrderSnapshot): LedgerEventInput {
    return {
      ...this.base(order),
      event_id: `patrol.${order.order_id}.integration_ready.${order.attempt}`,
      type: "INTEGRATION_READY",
      payload: { checked: ["aar.json", "artifacts", "clean worktree"] },
    };
  }

  /** Appends the events as one batch while the order stays at `version`; how many were new. */
  private async appendTogether(order: OrderSnapshot, version: number, events: LedgerEventInput[]) {
    try {
      const stored = await this.options.store.appendBatch(events, {
        expect: [{ kind: "order", id: order.order_id, version }],
      });
      return stored.filter((result) => !result.duplicate).length;
    } catch (error) {
      // Moved on since inspected (integration finished after all), or another patrol stored them first.
      if (error instanceof StreamVersionConflictError || error instanceof EventIdConflictError) return 0;
      throw error;
    }
  }

  /**
   * Appends each event unless already stored, while the order stays at the version inspected (plus what this
   * patrol appended); returns how many were new. A stored event of the same id with another body (a dirty
   * worktree whose paths changed) counts as raised.
   */
  private async appendOnce(order: OrderSnapshot, events: LedgerEventInput[]): Promise<number> {
    let version = order.version;
    let fresh = 0;
    for (const event of events) {
      try {
        const [result] = await this.options.store.appendBatch([event], {
          expect: [{ kind: "order", id: order.order_id, version }],
        });
        if (result && !result.duplicate) {
          version += 1;
          fresh += 1;
        }
      } catch (error) {
        if (error instanceof StreamVersionConflictError) return fresh;
        if (!(error instanceof EventIdConflictError)) throw error;
      }
    }
    return fresh;
  }
}
