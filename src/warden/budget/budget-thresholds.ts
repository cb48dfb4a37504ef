import { alertMessage, type CapWindow } from "./budget-messages.js";
import { type Party, partyKey } from "./budget-party.js";
import type { BudgetAlert, BudgetStore } from "./budget-store.js";

/** Records an alert for a cap's window unless that level was already recorded; the alert when it is new. */
export function recordAlert(store: BudgetStore, cap: CapWindow, level: string): BudgetAlert | undefined {
  return store.addAlert({
    userId: cap.party.user ?? null,
    party: partyKey(cap.party),
    periodKey: cap.periodKey,
    level,
    limitMicros: cap.limitMicros,
    spentMicros: cap.spentMicros,
    message: alertMessage(cap, level),
  });
}

/**
 * After a call is charged: each alert threshold (percent of a cap) the spend of the call's windows has reached,
 * recorded once per window, so a user hears of 50 %, 80 % and 100 % once a day or month. Returns the new ones.
 */
export function recordCrossedThresholds(
  store: BudgetStore,
  charges: ReadonlyArray<[string, string]>,
  options: { hostTimeZone: string; alertPercent: readonly number[] },
): BudgetAlert[] {
  const alerts: BudgetAlert[] = [];
  const zoneOf = (party: Party) =>
    party.kind === "host"
      ? options.hostTimeZone
      : (store.timeZoneOf(party.user ?? "") ?? options.hostTimeZone);
  for (const cap of store.capsFor([...new Set(charges.map(([key]) => key))])) {
    const periodKey = charges.find(
      ([key, pk]) => key === cap.key && (cap.period === "total" ? pk === "total" : pk.startsWith(cap.period)),
    )?.[1];
    if (periodKey === undefined || cap.limitMicros === 0) continue;
    const spend = store.spend(cap.key, periodKey);
    const window: CapWindow = {
      party: cap.party,
      period: cap.period,
      periodKey,
      timeZone: zoneOf(cap.party),
      limitMicros: cap.limitMicros,
      spentMicros: spend.spent,
      reservedMicros: spend.reserved,
    };
    for (const percent of options.alertPercent) {
      if (spend.spent * 100 < cap.limitMicros * percent) continue;
      const added = recordAlert(store, window, String(percent));
      if (added) alerts.push(added);
    }
  }
  return alerts;
}
