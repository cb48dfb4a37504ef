import type Database from "better-sqlite3";
import { newId } from "../../core/index.js";
import { type CapWindow, exceededMessage, unpricedMessage } from "./budget-messages.js";
import { partiesOfCall, partyKey, periodsOf } from "./budget-party.js";
import type { BudgetAlert, BudgetStore } from "./budget-store.js";
import { recordAlert, recordCrossedThresholds } from "./budget-thresholds.js";
import { localDay, windowKey } from "./budget-windows.js";
import type { CallState } from "./usage-store.js";

export interface ReserveInput {
  userId: string;
  agent?: string;
  session?: string;
  job?: string;
  provider: string;
  model: string;
  priced: boolean;
  promptTokens: number;
  /** What the prompt alone costs: charged for a call whose warden died while it ran. */
  promptMicros: number;
  /** The most the call can cost: the prompt plus its max_tokens of output. */
  worstMicros: number;
}

/** An admitted call's hold on its parties' windows until it settles. */
export interface Reservation {
  id: string;
  worstMicros: number;
  /** Every (party, window) the call is counted in. */
  charges: Array<[string, string]>;
  /** True when some cap applies to the call (so it must carry a max_tokens). */
  capped: boolean;
}

export interface Refusal {
  kind: "exceeded" | "unpriced";
  message: string;
  cap: CapWindow;
  /** The window's first refusal is an alert of its own. */
  alert?: BudgetAlert;
}

export interface Settlement {
  state: CallState;
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens the provider served from its cache. */
  cachedInputTokens?: number;
  costMicros: number;
  estimated: boolean;
  ms: number;
  /** The warden cut the call's stream at its reservation. */
  cut?: boolean;
  /** The provider's own figure where it said more than the call was charged (kept beside the charge, not in it). */
  reported?: { inputTokens: number; outputTokens: number; costMicros: number };
}

export interface MeterOptions {
  hostTimeZone: string;
  allowUnpriced: boolean;
  alertPercent: readonly number[];
  owner: string;
  now: () => number;
}

interface OpenRow {
  id: string;
  reserved_micros: number;
  prompt_micros: number;
  input_tokens: number;
  charges: string;
  owner: string | null;
  started_at: string;
}

/**
 * Reservations against the caps, in host.db. Each step is one `BEGIN IMMEDIATE` transaction: it takes SQLite's
 * write lock before reading the counters, so two calls (in this process or another on the same file) can never
 * both read the same spend and together pass a cap. Money is in µUSD.
 */
export class BudgetMeter {
  private readonly reserveTx: (input: ReserveInput) => Reservation | Refusal;
  private readonly settleTx: (reservation: Reservation, end: Settlement) => BudgetAlert[];
  private readonly transaction: Database.Transaction<(work: () => unknown) => unknown>;

  constructor(
    private readonly store: BudgetStore,
    private readonly options: MeterOptions,
  ) {
    const db = store.db;
    this.transaction = db.transaction((work: () => unknown) => work());
    const insertCall = db.prepare(
      `INSERT INTO usage_calls (id, user_id, agent, session, job, provider, model, state, day, started_at,
         input_tokens, priced, reserved_micros, prompt_micros, charges, owner, reason)
       VALUES (@id, @user, @agent, @session, @job, @provider, @model, @state, @day, @at,
         @input, @priced, @reserved, @prompt, @charges, @owner, @reason)`,
    );
    const hold = db.prepare(
      `INSERT INTO budget_spend (party, period_key, reserved_micros) VALUES (?, ?, ?)
       ON CONFLICT(party, period_key) DO UPDATE SET reserved_micros = reserved_micros + excluded.reserved_micros`,
    );
    const finish = db.prepare(
      `UPDATE usage_calls SET state = @state, ended_at = @at, ms = @ms, input_tokens = @input,
         cached_input_tokens = @cached, output_tokens = @output, cost_micros = @cost, estimated = @estimated, owner = NULL,
         cut = @cut, provider_input_tokens = @providerInput, provider_output_tokens = @providerOutput,
         provider_cost_micros = @providerCost
       WHERE id = @id AND state = 'open'`,
    );
    const release = db.prepare(
      `UPDATE budget_spend SET reserved_micros = max(reserved_micros - ?, 0), spent_micros = spent_micros + ?
       WHERE party = ? AND period_key = ?`,
    );

    this.reserveTx = (input) => {
      const now = options.now();
      const userZone = store.timeZoneOf(input.userId) ?? options.hostTimeZone;
      const windows = partiesOfCall(input).flatMap((party) =>
        periodsOf(party.kind).map((period) => {
          const timeZone = party.kind === "host" ? options.hostTimeZone : userZone;
          return {
            party,
            key: partyKey(party),
            period,
            periodKey: windowKey(period, now, timeZone),
            timeZone,
          };
        }),
      );
      const row = {
        id: newId(),
        user: input.userId,
        agent: input.agent ?? null,
        session: input.session ?? null,
        job: input.job ?? null,
        provider: input.provider,
        model: input.model,
        day: localDay(now, userZone),
        at: new Date(now).toISOString(),
        input: input.promptTokens,
        priced: input.priced ? 1 : 0,
        prompt: input.promptMicros,
        charges: JSON.stringify(windows.map((w) => [w.key, w.periodKey])),
      };
      return this.immediate(() => {
        const caps: CapWindow[] = [];
        for (const cap of store.capsFor([...new Set(windows.map((w) => w.key))])) {
          const w = windows.find((x) => x.key === cap.key && x.period === cap.period);
          if (!w) continue;
          const spend = store.spend(w.key, w.periodKey);
          caps.push({
            party: cap.party,
            period: cap.period,
            periodKey: w.periodKey,
            timeZone: w.timeZone,
            limitMicros: cap.limitMicros,
            spentMicros: spend.spent,
            reservedMicros: spend.reserved,
          });
        }
        const refusal = this.judge(caps, input);
        if (refusal) {
          insertCall.run({ ...row, state: "refused", reserved: 0, owner: null, reason: refusal.message });
          const alert = refusal.kind === "exceeded" ? recordAlert(store, refusal.cap, "refused") : undefined;
          return alert ? { ...refusal, alert } : refusal;
        }
        insertCall.run({
          ...row,
          state: "open",
          reserved: input.worstMicros,
          owner: options.owner,
          reason: null,
        });
        for (const w of windows) hold.run(w.key, w.periodKey, input.worstMicros);
        return {
          id: row.id,
          worstMicros: input.worstMicros,
          charges: windows.map((w): [string, string] => [w.key, w.periodKey]),
          capped: caps.length > 0,
        };
      });
    };

    this.settleTx = (reservation, end) =>
      this.immediate(() => {
        const changed = finish.run({
          id: reservation.id,
          state: end.state,
          at: new Date(options.now()).toISOString(),
          ms: Math.round(end.ms),
          input: end.inputTokens,
          cached: end.cachedInputTokens ?? 0,
          output: end.outputTokens,
          cost: end.costMicros,
          estimated: end.estimated ? 1 : 0,
          cut: end.cut ? 1 : 0,
          providerInput: end.reported?.inputTokens ?? null,
          providerOutput: end.reported?.outputTokens ?? null,
          providerCost: end.reported?.costMicros ?? null,
        }).changes;
        // Settled already (a recovering warden took it for dead): counting it again would double it.
        if (changed === 0) return [];
        for (const [key, periodKey] of reservation.charges)
          release.run(reservation.worstMicros, end.costMicros, key, periodKey);
        return recordCrossedThresholds(store, reservation.charges, options);
      });
  }

  /** Holds the call's worst case on every party it is charged to, or says which cap refuses it. */
  reserve(input: ReserveInput): Reservation | Refusal {
    return this.reserveTx(input);
  }

  /** Turns the hold into the real cost; returns the alerts this spend set off. Settling twice is a no-op. */
  settle(reservation: Reservation, end: Settlement): BudgetAlert[] {
    return this.settleTx(reservation, end);
  }

  /**
   * Settles the open calls of wardens that are gone as `interrupted`, charging what the prompt alone costs: the
   * provider most likely received it, while what it generated before the connection died is unknowable. (The
   * whole reservation would let a crash loop use up a budget without one answer.) Returns how many it settled.
   */
  recover(isAlive: (owner: string | null) => boolean | undefined): number {
    const open = this.store.db
      .prepare<[], OpenRow>(
        "SELECT id, reserved_micros, prompt_micros, input_tokens, charges, owner, started_at FROM usage_calls WHERE state = 'open'",
      )
      .all();
    let settled = 0;
    for (const row of open) {
      if (row.owner === this.options.owner || isAlive(row.owner) !== false) continue;
      const charges = JSON.parse(row.charges) as Array<[string, string]>;
      const reservation = { id: row.id, worstMicros: row.reserved_micros, charges, capped: false };
      const ms = Math.max(0, this.options.now() - Date.parse(row.started_at));
      const cost = Math.min(row.prompt_micros, row.reserved_micros);
      this.settle(reservation, {
        state: "interrupted",
        inputTokens: row.input_tokens,
        outputTokens: 0,
        costMicros: cost,
        estimated: true,
        ms,
      });
      settled++;
    }
    return settled;
  }

  private judge(caps: CapWindow[], input: ReserveInput): Refusal | undefined {
    const first = caps[0];
    if (first && !input.priced && !this.options.allowUnpriced)
      return { kind: "unpriced", message: unpricedMessage(input.provider, input.model, first), cap: first };
    const over = caps.find((c) => c.spentMicros + c.reservedMicros + input.worstMicros > c.limitMicros);
    return over
      ? { kind: "exceeded", message: exceededMessage(over, input.worstMicros), cap: over }
      : undefined;
  }

  /** Runs `work` in a BEGIN IMMEDIATE transaction: the write lock first, then the reads. */
  private immediate<T>(work: () => T): T {
    return this.transaction.immediate(work) as T;
  }
}
