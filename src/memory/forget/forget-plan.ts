import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { BrainFileRefusal } from "../brain-file-access.js";
import { listBrainFiles, type SkippedFile } from "../brain-files.js";
import { BRAIN_PATHS, type BrainLayout } from "../brain-layout.js";
import type { IndexStore } from "../index/index.js";
import { DEFAULT_MAX_FILE_BYTES } from "../index/index.js";
import {
  containsMatcher,
  type FileRemoval,
  type ForgetMatcher,
  queryMatcher,
  removeMatching,
  unitsOf,
} from "./forget-match.js";
import { readPlainFile, replacePlainFile } from "./forget-rewrite.js";

/** What to forget: every passage containing all words of a query, or one indexed chunk by its id. */
export type ForgetTarget = { kind: "query"; query: string } | { kind: "chunk"; id: string };

export interface ForgetFile {
  path: string;
  /** sha256 of the file as planned on; the rewrite refuses if it changed since. */
  hash: string;
  removal: FileRemoval;
}

export interface ForgetPlan {
  target: ForgetTarget;
  files: ForgetFile[];
  skipped: SkippedFile[];
}

export interface ForgetOptions {
  /** False: only work out what would be removed (the CLI's preview without --yes). */
  apply: boolean;
  /**
   * Runs after the files are rewritten and reindexed, before the database is purged: the caller removes its
   * own copies of the text (stored conversations, the audit trail) so the purge takes those too.
   */
  beforePurge?: (plan: ForgetPlan) => void;
}

export interface ForgetOutcome extends ForgetPlan {
  applied: boolean;
  /** How long rebuilding the database without the deleted text took. */
  purgeMs?: number;
  /** Why the database could not be rebuilt now (another process held it): the next forget purges again. */
  purgeError?: string;
}

const CHUNK_ID = /^[0-9a-f]{32}$/;

/** A chunk id (32 hex digits, as search hits carry) names a chunk; anything else is a query. */
export function parseForgetTarget(target: string): ForgetTarget {
  const text = target.trim();
  if (text === "") throw new InvalidInputError("target", "must not be empty: give a query or a chunk id");
  if (CHUNK_ID.test(text)) return { kind: "chunk", id: text };
  if (text.length > 2000) throw new InvalidInputError("target", "must be at most 2000 characters");
  if (!/[\p{L}\p{N}]/u.test(text)) throw new InvalidInputError("target", "must contain a word to look for");
  return { kind: "query", query: text };
}

/**
 * Whether forgetting may edit a file: the persona (soul.md, watched by the soul guard) and instructions/ are
 * the owner's rules, edited by them on purpose, never cut by a memory search.
 */
export function isForgettablePath(path: string): boolean {
  return path !== BRAIN_PATHS.soul && !path.startsWith(`${BRAIN_PATHS.instructions}/`);
}

/**
 * Works out what forgetting `target` removes, without changing anything. A query is matched against every
 * markdown file of the brain as it is now (not the index, which may lag behind an edit); a chunk id is looked
 * up in the index and its lines are checked against the file before they are taken.
 */
export async function planForget(
  brain: BrainLayout,
  store: IndexStore,
  target: ForgetTarget,
  maxFileBytes = DEFAULT_MAX_FILE_BYTES,
): Promise<ForgetPlan> {
  const plan: ForgetPlan = { target, files: [], skipped: [] };
  if (target.kind === "chunk") {
    const chunk = findChunk(store, target.id);
    if (!chunk) throw new NotFoundError("chunk", target.id);
    if (!isForgettablePath(chunk.path))
      throw new InvalidInputError("target", `${chunk.path} is edited by its owner, not forgotten`);
    const file = await readPlainFile(brain.root, chunk.path, maxFileBytes);
    const lines = file?.text.split("\n") ?? [];
    const taken = lines.slice(chunk.startLine - 1, chunk.endLine).join("\n");
    if (!file || !taken.includes(chunk.text.trimEnd()))
      throw new NotFoundError(
        "chunk",
        `${target.id} (its file changed since it was indexed; index and retry)`,
      );
    const extra = new Set(
      Array.from({ length: chunk.endLine - chunk.startLine + 1 }, (_, i) => chunk.startLine - 1 + i),
    );
    // The first part of a split section starts with its heading; the parts after it keep it.
    if (/^ {0,3}#/.test(lines[chunk.startLine - 1] ?? "") && sectionGoesOn(lines, chunk.endLine))
      extra.delete(chunk.startLine - 1);
    const removal = removeMatching(file.text, () => false, extra);
    if (removal) plan.files.push({ path: chunk.path, hash: file.hash, removal });
    return plan;
  }
  const matches = queryMatcher(target.query);
  const { files, skipped } = await listBrainFiles(brain);
  plan.skipped.push(...skipped);
  for (const listed of files) {
    if (!isForgettablePath(listed.path)) continue;
    try {
      const file = await readPlainFile(brain.root, listed.path, maxFileBytes);
      const removal = file && removeMatching(file.text, matches);
      if (file && removal) plan.files.push({ path: listed.path, hash: file.hash, removal });
    } catch (error) {
      if (!(error instanceof BrainFileRefusal)) throw error;
      plan.skipped.push({ path: listed.path, reason: error.rule });
    }
  }
  return plan;
}

/** Writes a plan's files; returns the paths rewritten. A file changed since the plan fails the whole call. */
export async function applyForget(brain: BrainLayout, plan: ForgetPlan): Promise<string[]> {
  for (const file of plan.files) await replacePlainFile(brain.root, file.path, file.removal.text, file.hash);
  return plan.files.map((f) => f.path);
}

/**
 * What copies of the forgotten text elsewhere (stored conversations, the tool-call audit, the warden's record of
 * what the user saw) must lose, as plain data that can cross the cell's channel: for a query the same rule as
 * the files; for a chunk its paragraphs, wherever they were quoted.
 */
export type ForgetScope = { query: string } | { passages: string[] };

export function forgetScope(plan: ForgetPlan): ForgetScope {
  if (plan.target.kind === "query") return { query: plan.target.query };
  const passages: string[] = [];
  for (const file of plan.files)
    for (const text of file.removal.removed) {
      const lines = text.split("\n");
      for (const unit of unitsOf(lines))
        if (!unit.heading) passages.push(lines.slice(unit.start, unit.end + 1).join("\n"));
    }
  return { passages };
}

/** The matcher a scope stands for: a unit with every word of the query, or one that quotes a passage. */
export function scopeMatcher(scope: ForgetScope): ForgetMatcher {
  if ("query" in scope) return queryMatcher(scope.query);
  return scope.passages.length === 0 ? () => false : containsMatcher(scope.passages);
}

/** Whether text follows line `from` (0-based index of the next line) before the next heading. */
function sectionGoesOn(lines: readonly string[], from: number): boolean {
  for (const line of lines.slice(from)) {
    if (/^ {0,3}#{1,6}(\s|$)/.test(line)) return false;
    if (line.trim() !== "") return true;
  }
  return false;
}

function findChunk(store: IndexStore, id: string) {
  // The index has no lookup by id; a forget is rare and the per-file query uses the path index.
  for (const record of store.fileRecords()) {
    const chunk = store.chunksOfFile(record.path).find((c) => c.id === id);
    if (chunk) return chunk;
  }
  return undefined;
}
