import type Database from "better-sqlite3";
import type { IronclawdConfig, TokenUsage } from "../../contracts/index.js";
import { currentOwner, Emitter, isOwnerAlive } from "../../core/index.js";
import type { ChatMessage, ToolSpec } from "../../providers/index.js";
import { BudgetMeter, type Refusal, type Reservation } from "./budget-meter.js";
import { type BudgetAlert, BudgetStore } from "./budget-store.js";
import { costMicros, PriceBook, type TokenCounts } from "./price-book.js";
import { estimatePromptTokens, estimateReplyTokens } from "./usage-estimate.js";
import type { CallState } from "./usage-store.js";
import { UsageStore } from "./usage-store.js";

/** A model call a cell asked for, as the warden sees it before dispatch. */
export interface ModelCallStart {
  /** The cell's owner: who pays, whatever the frame says. */
  userId: string;
  agent?: string;
  session?: string;
  job?: string;
  provider: string;
  model: string;
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  maxTokens?: number;
}

/** How a call ended, for its settlement. */
export interface ModelCallEnd {
  state: CallState;
  /** The provider's own count, when the stream carried one. */
  usage?: TokenUsage;
  /** The reply as far as it got, to estimate from when there is no usage. */
  reply: { content: string; toolCalls: ReadonlyArray<{ name: string; arguments: string }> };
  /** The provider accepted the request (its stream started): a prompt it read is billed even without output. */
  accepted: boolean;
  ms: number;
  /** The output the warden counted as it streamed (a fuller estimate than the reply: it saw reasoning too). */
  streamedOutputTokens?: number;
  /** The warden cut the stream once that count passed the call's max_tokens. */
  cut?: boolean;
}

/** A call that went past its reservation: charged the reservation at most, the rest recorded beside it. */
export interface Overrun {
  cut: boolean;
  reservedMicros: number;
  chargedMicros: number;
  /** The provider's own figure, when it reported more than the call was charged. */
  reported?: { inputTokens: number; outputTokens: number; costMicros: number };
}

export type Admission =
  | { ok: true; reservation: Reservation; promptTokens: number; maxTokens: number | undefined }
  | { ok: false; refusal: Refusal };

export interface ModelBudgetOptions {
  db: Database.Database;
  config: Pick<IronclawdConfig, "pricing" | "budgets">;
  now?: () => number;
  /** The process holding reservations (tests run two "wardens" in one process). */
  owner?: string;
}

/** Whether a call went past what it reserved, and what it is charged then; undefined when it did not. */
function overrunOf(
  admission: Extract<Admission, { ok: true }>,
  tokens: TokenCounts,
  cost: number,
  end: ModelCallEnd,
): Overrun | undefined {
  // Without a max_tokens no output was promised (no cap applies and the guest named none): nothing to pass.
  if (admission.maxTokens === undefined) return undefined;
  const reservedMicros = admission.reservation.worstMicros;
  const over = cost > reservedMicros || tokens.output > admission.maxTokens;
  if (!over && !end.cut) return undefined;
  const chargedMicros = Math.min(cost, reservedMicros);
  return {
    cut: end.cut === true,
    reservedMicros,
    chargedMicros,
    ...(end.usage && over
      ? { reported: { inputTokens: tokens.input, outputTokens: tokens.output, costMicros: cost } }
      : {}),
  };
}

/**
 * Spend caps at the model proxy: every call is admitted (its worst case reserved against every cap that applies)
 * or refused before it reaches a provider, and settled at its real cost when it ends. Every call is recorded,
 * capped or not, so a cap set in the middle of a day counts what the day already spent.
 */
export class ModelBudget {
  readonly store: BudgetStore;
  readonly usage: UsageStore;
  readonly prices: PriceBook;
  private readonly meter: BudgetMeter;
  // A relay that fails must not fail the call it reports on; the alert stays in host.db for the UI.
  private readonly alerts = new Emitter<[BudgetAlert]>(() => {});
  private readonly budgets: IronclawdConfig["budgets"];

  constructor(options: ModelBudgetOptions) {
    const now = options.now ?? Date.now;
    this.budgets = options.config.budgets;
    this.store = new BudgetStore(options.db, now);
    this.usage = new UsageStore(options.db);
    this.prices = new PriceBook(options.config.pricing);
    this.meter = new BudgetMeter(this.store, {
      hostTimeZone: this.budgets.timezone,
      allowUnpriced: this.budgets.allow_unpriced,
      alertPercent: this.budgets.alert_percent,
      owner: options.owner ?? currentOwner(),
      now,
    });
  }

  /** The time zone of a user's days and months (their own, else the host's). */
  timeZoneOf(userId: string | undefined): string {
    return (userId && this.store.timeZoneOf(userId)) || this.budgets.timezone;
  }

  /**
   * Reserves the call's worst case: the prompt's estimate at the input price plus max_tokens (or, under a cap,
   * [budgets] default_max_tokens, which is then sent as the call's max_tokens) at the output price.
   */
  admit(call: ModelCallStart): Admission {
    const price = this.prices.priceOf(call.provider, call.model);
    const promptTokens = estimatePromptTokens(call.messages, call.tools ?? []);
    const outputTokens = call.maxTokens ?? this.budgets.default_max_tokens;
    const reserved = this.meter.reserve({
      userId: call.userId,
      ...(call.agent ? { agent: call.agent } : {}),
      ...(call.session ? { session: call.session } : {}),
      ...(call.job ? { job: call.job } : {}),
      provider: call.provider,
      model: call.model,
      priced: price !== undefined,
      promptTokens,
      promptMicros: price ? costMicros(price, { input: promptTokens, output: 0 }) : 0,
      worstMicros: price ? costMicros(price, { input: promptTokens, output: outputTokens }) : 0,
    });
    if ("kind" in reserved) {
      if (reserved.alert) this.emit([reserved.alert]);
      return { ok: false, refusal: reserved };
    }
    const maxTokens = call.maxTokens ?? (reserved.capped ? this.budgets.default_max_tokens : undefined);
    return { ok: true, reservation: reserved, promptTokens, maxTokens };
  }

  /**
   * Charges the call's real cost: the provider's usage times the price, or an estimate from the prompt and the
   * text when the stream carried no usage (marked estimated). A request the provider never accepted costs nothing.
   * A call sent with a max_tokens is charged at most its reservation: past it (the warden cut the stream, or the
   * provider reports more) the charge is the reservation and the provider's figure is recorded beside it,
   * flagged, and returned for the audit; it is never added to spend.
   */
  settle(
    admission: Extract<Admission, { ok: true }>,
    call: ModelCallStart,
    end: ModelCallEnd,
  ): Overrun | undefined {
    const price = this.prices.priceOf(call.provider, call.model);
    let tokens: TokenCounts;
    let estimated = false;
    if (end.usage)
      tokens = {
        input: end.usage.input_tokens,
        output: end.usage.output_tokens,
        cachedInput: end.usage.cached_input_tokens ?? 0,
      };
    else if (!end.accepted) tokens = { input: 0, output: 0 };
    else {
      tokens = {
        input: admission.promptTokens,
        output: end.streamedOutputTokens ?? estimateReplyTokens(end.reply),
      };
      estimated = true;
    }
    const cost = price ? costMicros(price, tokens) : 0;
    const overrun = overrunOf(admission, tokens, cost, end);
    if (overrun) tokens = { input: admission.promptTokens, output: admission.maxTokens ?? tokens.output };
    const alerts = this.meter.settle(admission.reservation, {
      state: end.state,
      inputTokens: tokens.input,
      cachedInputTokens: tokens.cachedInput ?? 0,
      outputTokens: tokens.output,
      costMicros: overrun ? overrun.chargedMicros : cost,
      estimated,
      ms: end.ms,
      ...(overrun ? { cut: overrun.cut } : {}),
      ...(overrun?.reported ? { reported: overrun.reported } : {}),
    });
    this.emit(alerts);
    return overrun;
  }

  /** Settles the calls of wardens that died mid-call (see BudgetMeter.recover); how many. */
  recover(isAlive: (owner: string | null) => boolean | undefined = isOwnerAlive): number {
    return this.meter.recover(isAlive);
  }

  /** Alerts as they are recorded (the daemon relays them to the user's channels). */
  onAlert(listener: (alert: BudgetAlert) => void): () => void {
    return this.alerts.on(listener);
  }

  private emit(alerts: readonly BudgetAlert[]): void {
    for (const alert of alerts) this.alerts.emit(alert);
  }
}
