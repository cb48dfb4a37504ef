import {
  type BrainMemory,
  type Correction,
  type ForgetMatcher,
  type ForgetScope,
  forgetScope,
  parseForgetTarget,
  type SkippedFile,
  scopeMatcher,
} from "../memory/index.js";
import type { AgentDatabase } from "./agent-db.js";
import { scrubAgentTables } from "./forget-scrub.js";
import type { MemoryChange, MemoryChangeLog } from "./memory-change-log.js";

/** The parts of a brain's runtime that forgetting touches. */
export interface ForgettingParts {
  memory: Pick<BrainMemory, "forget" | "correct">;
  db: AgentDatabase;
  changes: MemoryChangeLog;
}

export interface ForgetRequest {
  /** A query (every passage holding all its words) or a chunk id from a search hit. */
  target: string;
  /** False: report what would be forgotten and change nothing. */
  apply: boolean;
  actor: string;
  sessionId?: string;
  at: Date;
}

export interface ForgetReport {
  applied: boolean;
  places: MemoryChange[];
  /** The removed passages, for a person previewing a forget at their own terminal; never stored. */
  previews: string[];
  skipped: SkippedFile[];
  /** What else must lose the text (the current turn's transcript and history); absent when nothing matched. */
  matcher?: ForgetMatcher;
  /** The same as data, for copies kept outside the brain (the warden's record of the conversations). */
  scope?: ForgetScope;
  purgeMs?: number;
  purgeError?: string;
}

/**
 * Forgets everywhere the brain keeps it: the markdown (then the index, rebuilt from it), the runtime's copies
 * (stored conversations, audit arguments, recalled passages, proposals) and the database's free space; then
 * records where it was, by hash.
 */
export async function forgetMemory(parts: ForgettingParts, request: ForgetRequest): Promise<ForgetReport> {
  const target = parseForgetTarget(request.target);
  const outcome = await parts.memory.forget(target, {
    apply: request.apply,
    beforePurge: (plan) => scrubAgentTables(parts.db, scopeMatcher(forgetScope(plan))),
  });
  const scope = outcome.files.length > 0 ? forgetScope(outcome) : undefined;
  const places: MemoryChange[] = outcome.files.flatMap((f) =>
    f.removal.regions.map((r) => ({ path: f.path, ...r })),
  );
  const report: ForgetReport = {
    applied: outcome.applied,
    places,
    previews: outcome.files.flatMap((f) => f.removal.removed),
    skipped: outcome.skipped,
    ...(scope ? { matcher: scopeMatcher(scope), scope } : {}),
    ...(outcome.purgeMs === undefined ? {} : { purgeMs: outcome.purgeMs }),
    ...(outcome.purgeError === undefined ? {} : { purgeError: outcome.purgeError }),
  };
  if (outcome.applied)
    await parts.changes.record("forget", places, {
      actor: request.actor,
      at: request.at,
      ...(request.sessionId ? { sessionId: request.sessionId } : {}),
      ...(report.matcher ? { redact: report.matcher } : {}),
    });
  return report;
}

/** Replaces a wrong fact in place and records each place corrected, by hash. */
export async function correctMemory(
  parts: ForgettingParts,
  correction: Correction,
  scope: { actor: string; sessionId?: string; at: Date },
): Promise<MemoryChange[]> {
  const result = await parts.memory.correct(correction);
  const places = result.places.map((p) => ({
    path: p.path,
    headings: p.headings,
    startLine: p.line,
    endLine: p.line,
    hash: p.oldHash,
  }));
  await parts.changes.record("correct", places, scope);
  return places;
}
