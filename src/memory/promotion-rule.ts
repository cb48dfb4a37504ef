import { InvalidInputError } from "../core/index.js";
import { BRAIN_PATHS } from "./brain-layout.js";
import { SESSIONS_DIR } from "./transcript-file.js";

/**
 * When a passage of the stream (logs/, sessions/) has earned a place in memory.md: answers in at least
 * `minSessions` different sessions, on at least `minDays` different days, within the last `windowDays`, used it.
 * Days as well as sessions, so one busy afternoon of chatting about a thing does not make it a durable fact.
 */
export interface PromotionRule {
  minSessions: number;
  minDays: number;
  windowDays: number;
}

export const DEFAULT_PROMOTION_RULE: PromotionRule = { minSessions: 3, minDays: 2, windowDays: 30 };

/** One session's use of a recalled passage: the first time an answer of that session cited it. */
export interface RecallUse {
  chunkId: string;
  sessionId: string;
  /** `YYYY-MM-DD` (UTC) of that use. */
  day: string;
  path: string;
  headings: string[];
  text: string;
  at: string;
}

export interface PromotionCandidate {
  chunkId: string;
  path: string;
  headings: string[];
  text: string;
  sessions: number;
  days: number;
}

/** Only the stream is promoted: memory.md is already durable, and the rest of the brain is the owner's own. */
export function isPromotablePath(path: string): boolean {
  return path.startsWith(`${BRAIN_PATHS.logs}/`) || path.startsWith(`${SESSIONS_DIR}/`);
}

/** The passages that meet the rule at `now`, most used first (then by chunk id, so the order is stable). */
export function selectPromotions(
  uses: readonly RecallUse[],
  rule: PromotionRule,
  now: Date,
): PromotionCandidate[] {
  checkRule(rule);
  const since = new Date(now.getTime() - rule.windowDays * 86_400_000).toISOString();
  const byChunk = new Map<string, { last: RecallUse; sessions: Set<string>; days: Set<string> }>();
  for (const use of uses) {
    if (use.at < since || use.at > now.toISOString() || !isPromotablePath(use.path)) continue;
    const entry = byChunk.get(use.chunkId) ?? { last: use, sessions: new Set(), days: new Set() };
    entry.sessions.add(use.sessionId);
    entry.days.add(use.day);
    if (use.at >= entry.last.at) entry.last = use;
    byChunk.set(use.chunkId, entry);
  }
  return [...byChunk.values()]
    .filter((e) => e.sessions.size >= rule.minSessions && e.days.size >= rule.minDays)
    .map((e) => ({
      chunkId: e.last.chunkId,
      path: e.last.path,
      headings: e.last.headings,
      text: e.last.text,
      sessions: e.sessions.size,
      days: e.days.size,
    }))
    .sort((a, b) => b.sessions - a.sessions || (a.chunkId < b.chunkId ? -1 : 1));
}

function checkRule(rule: PromotionRule): void {
  for (const field of ["minSessions", "minDays", "windowDays"] as const) {
    const value = rule[field];
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidInputError(field, `must be a whole number of at least 1, got ${value}`);
  }
}

/**
 * The fact as memory.md keeps it: the passage without its headings (a transcript's `## 14:02:11 — user` means
 * nothing there), then where it came from, as a citation the agent can follow back.
 */
export function promotionEntry(
  candidate: Pick<PromotionCandidate, "path" | "headings" | "text">,
  note: string,
) {
  const body = candidate.text
    .split("\n")
    .filter((line) => !/^ {0,3}#{1,6}(\s|$)/.test(line))
    .join("\n")
    .trim();
  const heading = candidate.headings.at(-1);
  const source = heading ? `[${candidate.path}#${heading}]` : `[${candidate.path}]`;
  const firstLine =
    body
      .split("\n")[0]
      ?.replace(/[*_`>#-]/g, " ")
      .replace(/\s+/g, " ")
      .trim() ?? "";
  const title = firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine || "Promoted fact";
  return { title, text: `${body}\n\n_Source: ${source} — ${note}_` };
}
