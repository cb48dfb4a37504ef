import { cliTarget, describeParty, type Party, type Period } from "./budget-party.js";
import { describeRenewal, periodAdjective } from "./budget-windows.js";
import { formatUsd } from "./price-book.js";

// The sentences a person reads when a budget acts: a refused call (in the chat, Telegram, the OpenAI endpoint's
// 429) and an alert. Each says what happened, the numbers, and what can be done.

/** Starts every over-cap refusal, so the OpenAI endpoint can answer 429 budget_exceeded for it. */
export const BUDGET_EXCEEDED = "budget exceeded: ";
/** Starts the refusal of a model without a price while a budget applies. */
export const BUDGET_UNPRICED = "budget refused: ";

/** One cap against its current window. */
export interface CapWindow {
  party: Party;
  period: Period;
  periodKey: string;
  timeZone: string;
  limitMicros: number;
  spentMicros: number;
  reservedMicros: number;
}

export function exceededMessage(cap: CapWindow, worstMicros: number): string {
  const held = cap.reservedMicros > 0 ? `, ${formatUsd(cap.reservedMicros)} held by calls in flight` : "";
  return (
    `${BUDGET_EXCEEDED}${periodAdjective(cap.period)} budget of ${formatUsd(cap.limitMicros)} for ` +
    `${describeParty(cap.party)} reached (${formatUsd(cap.spentMicros)} spent${held}; this call could cost up to ` +
    `${formatUsd(worstMicros)}). It renews ${describeRenewal(cap.period, cap.timeZone)}; an admin can raise it: ` +
    `ironclaw budget set ${cliTarget(cap.party)} --${cap.period === "day" ? "daily" : "monthly"}-usd <dollars>`
  );
}

export function unpricedMessage(provider: string, model: string, cap: CapWindow): string {
  return (
    `${BUDGET_UNPRICED}model ${model} on provider ${provider} has no price, and the ` +
    `${periodAdjective(cap.period)} budget of ${describeParty(cap.party)} applies, so its cost cannot be bounded. ` +
    `An operator adds [pricing.${provider}."${model}"] input and output (US dollars per million tokens) to ` +
    "ironclawd.toml, or allows unpriced models with [budgets] allow_unpriced = true"
  );
}

export function alertMessage(cap: CapWindow, level: string): string {
  const what = `${periodAdjective(cap.period)} budget of ${formatUsd(cap.limitMicros)} for ${describeParty(cap.party)}`;
  const window = cap.periodKey.replace(/^(day|month):/, "");
  if (level === "refused")
    return `Budget: a model call was refused, the ${what} would be exceeded (${formatUsd(cap.spentMicros)} spent, ${window}). It renews ${describeRenewal(cap.period, cap.timeZone)}.`;
  if (level === "100")
    return `Budget: the ${what} is used up (${formatUsd(cap.spentMicros)} spent, ${window}); model calls are refused until it renews ${describeRenewal(cap.period, cap.timeZone)}.`;
  return `Budget: ${level}% of the ${what} is used (${formatUsd(cap.spentMicros)} spent, ${window}).`;
}

/** The budget refusal inside a turn's error text, if there is one, and which kind it is. */
export function findBudgetRefusal(
  text: string,
): { kind: "exceeded" | "unpriced"; message: string } | undefined {
  for (const [kind, marker] of [
    ["exceeded", BUDGET_EXCEEDED],
    ["unpriced", BUDGET_UNPRICED],
  ] as const) {
    const at = text.indexOf(marker);
    if (at >= 0) return { kind, message: text.slice(at) };
  }
  return undefined;
}
