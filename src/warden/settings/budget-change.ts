import { type SettingChange, usdCapSchema } from "../../contracts/index.js";
import { canonicalJson, InvalidInputError } from "../../core/index.js";
import { microsToUsd, usdToMicros } from "../budget/index.js";
import { unifiedDiff } from "./file-diff.js";

// A proposed spend cap ("cap Bob at $5 a day"): the caps live in host.db, not in a file, so the proposal's text
// is the party's caps written one a line. The desk checks that text against the caps as they are (confirm and
// revert refuse when a cap changed meanwhile), and the diff shows each cap before and after.

/** The caps a proposal may set, in US dollars; null is no cap. */
export interface BudgetCaps {
  daily_usd: number | null;
  monthly_usd: number | null;
}

const KEYS = ["daily_usd", "monthly_usd"] as const;

export interface BudgetDraft {
  text: string;
  diff: string;
  caps: BudgetCaps;
}

/** The caps as the proposal keeps and shows them: `daily_usd = 5`, `monthly_usd = none`. */
export function renderBudgetCaps(caps: BudgetCaps, whose: string): string {
  const line = (key: keyof BudgetCaps) => `${key} = ${caps[key] === null ? "none" : String(caps[key])}`;
  return [`# spend caps of ${whose}, in US dollars (none: no cap)`, ...KEYS.map(line), ""].join("\n");
}

/** The caps `renderBudgetCaps` wrote. */
export function parseBudgetCaps(text: string): BudgetCaps {
  const caps: BudgetCaps = { daily_usd: null, monthly_usd: null };
  for (const key of KEYS) {
    const value = new RegExp(`^${key} = (.+)$`, "m").exec(text)?.[1];
    caps[key] = value === undefined || value === "none" ? null : Number(value);
  }
  return caps;
}

/**
 * Checks a change to a party's caps (`daily_usd = 5`, null removes the cap) and writes out the caps it leaves.
 * Refused, naming the key: a key that is not a cap, a value that is not a number of dollars from 0, no change.
 */
export function draftBudgetChange(
  base: BudgetCaps,
  changes: readonly SettingChange[],
  whose: string,
  label: string,
): BudgetDraft {
  const caps: BudgetCaps = { ...base };
  const seen = new Set<string>();
  for (const [index, change] of changes.entries()) {
    const key = KEYS.find((k) => k === change.path);
    if (key === undefined)
      throw new InvalidInputError(change.path, "is not a spend cap: a budget has daily_usd and monthly_usd");
    if (seen.has(key)) throw new InvalidInputError(`changes[${index}].path`, `changes ${key} a second time`);
    seen.add(key);
    if (change.value === null) {
      caps[key] = null;
      continue;
    }
    const usd = usdCapSchema.safeParse(change.value);
    if (!usd.success)
      throw new InvalidInputError(
        key,
        typeof change.value === "number"
          ? (usd.error.issues[0]?.message ?? "is not a cap")
          : "must be a number of US dollars, or null for no cap",
      );
    // As the store keeps it (whole micro-dollars), so that the caps read back after a confirm match this text.
    caps[key] = microsToUsd(usdToMicros(usd.data));
  }
  if (canonicalJson(caps) === canonicalJson(base))
    throw new InvalidInputError("changes", "change nothing: every cap already has that value");
  const before = renderBudgetCaps(base, whose);
  const text = renderBudgetCaps(caps, whose);
  return { text, diff: unifiedDiff(before, text, label), caps };
}
