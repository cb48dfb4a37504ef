import { readFileSync } from "node:fs";
import type { SettingChange } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import {
  type BudgetAdminDeps,
  describeParty,
  microsToUsd,
  partyKey,
  partyOf,
  setBudget,
} from "../budget/index.js";
import { writePrivateFile } from "../host-env-file.js";
import { type BudgetCaps, draftBudgetChange, parseBudgetCaps, renderBudgetCaps } from "./budget-change.js";
import { draftConfigChange } from "./config-change.js";
import { draftProfileChange, profileFile } from "./profile-change.js";

// What a proposal changes, each kind behind one interface so the desk keeps one store, one confirm/reject/revert
// flow and one audit vocabulary for all of them: the warden's ironclawd.toml, a user's agent profile in their
// brain, a user's spend caps in host.db. Each target reads its state as text (the base a confirmation and a
// revert are checked against), drafts a change into new text with its diff, and writes a text back.

export type TakesEffect = "restart" | "next_turn" | "now";

export type TargetName =
  | { kind: "host" }
  | { kind: "profile"; user: string; agent: string }
  | { kind: "budget"; user: string; agent?: string };

export interface TargetDraft {
  text: string;
  diff: string;
  /** Variables the change names for secrets (ironclawd.toml's `*_env`): pasted into a form before confirming. */
  secrets: string[];
}

/** Who writes a target, and why, as the brain's history and the audit record it. */
export interface TargetWrite {
  proposal: string;
  /** `user:<id>` of the person who confirmed or reverted. */
  by: string;
  cause: string;
}

export interface SettingsTarget {
  read(): Promise<string>;
  draft(base: string, changes: readonly SettingChange[]): TargetDraft;
  write(text: string, why: TargetWrite): Promise<void>;
}

/**
 * A user's brain files, written as a person's edit (the soul guard's record, the audit, the brain's history) by
 * the user's cell: the warden never opens a brain itself.
 */
export interface BrainFiles {
  /** The file's text, or undefined when it does not exist. */
  read(userId: string, path: string): Promise<string | undefined>;
  write(userId: string, path: string, text: string, why: TargetWrite): Promise<void>;
}

export const HOST_TARGET = "ironclawd.toml";

export function parseTarget(target: string): TargetName {
  const [kind, rest = ""] = target.split(":", 2);
  const [user = "", agent] = rest.split("/", 2);
  if (kind === "profile" && agent !== undefined) return { kind, user, agent };
  if (kind === "budget") return agent === undefined ? { kind, user } : { kind, user, agent };
  return { kind: "host" };
}

/** What the person reads as the proposal's file: `ironclawd.toml`, `bob's config/agents/research.toml`… */
export function targetLabel(name: TargetName): string {
  switch (name.kind) {
    case "host":
      return HOST_TARGET;
    case "profile":
      return `${name.user}'s ${profileFile(name.agent)}`;
    case "budget":
      return name.agent === undefined
        ? `${name.user}'s spend caps`
        : `${name.user}'s spend caps for ${name.agent}`;
  }
}

/**
 * The warden reads ironclawd.toml when it starts; a cell reads its profiles again before each turn; the model
 * proxy reads caps at each call.
 */
export function takesEffect(name: TargetName): TakesEffect {
  return name.kind === "host" ? "restart" : name.kind === "profile" ? "next_turn" : "now";
}

/** ironclawd.toml under IRONCLAW_HOME, written atomically. */
export function hostFileTarget(file: string): SettingsTarget {
  return {
    read: async () => readText(file),
    draft: (base, changes) => draftConfigChange(base, changes),
    // Flushed beside the config and renamed over it: a crash leaves the old file or the new one, never half.
    write: async (text) => writePrivateFile(file, text),
  };
}

/** A user's agent profile; refused (naming `target`) when their brain has no such profile. */
export async function profileTarget(
  brains: BrainFiles,
  name: { user: string; agent: string },
): Promise<SettingsTarget> {
  const path = profileFile(name.agent);
  const read = async () => {
    const text = await brains.read(name.user, path);
    if (text === undefined)
      throw new InvalidInputError(
        "target",
        `${name.user}'s brain has no agent profile ${name.agent} (no ${path}): name one of their agents`,
      );
    return text;
  };
  await read();
  return {
    read,
    draft: (base, changes) => ({ ...draftProfileChange(base, changes, name), secrets: [] }),
    write: (text, why) => brains.write(name.user, path, text, why),
  };
}

/** A user's (or one of their agents') spend caps, set through what `PUT /api/budgets` runs. */
export function budgetTarget(deps: BudgetAdminDeps, name: { user: string; agent?: string }): SettingsTarget {
  const party = partyOf(name);
  const whose = describeParty(party);
  const caps = (): BudgetCaps => {
    const set = deps.budget.store.capsFor([partyKey(party)]);
    const usd = (period: string) => {
      const cap = set.find((c) => c.period === period);
      return cap === undefined ? null : microsToUsd(cap.limitMicros);
    };
    return { daily_usd: usd("day"), monthly_usd: usd("month") };
  };
  return {
    read: async () => renderBudgetCaps(caps(), whose),
    draft: (base, changes) => ({
      ...draftBudgetChange(parseBudgetCaps(base), changes, whose, targetLabel({ kind: "budget", ...name })),
      secrets: [],
    }),
    write: async (text, why) => {
      setBudget(deps, { ...name, ...parseBudgetCaps(text) }, why.by);
    },
  };
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}
