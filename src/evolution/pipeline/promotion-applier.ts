import { sha256Hex } from "../../core/index.js";
import type { ProposedChange } from "./proposal.js";

/** One file change ready to be written: the exact text before (null: no file) and after. */
export interface PromotionChange {
  proposal_id: string;
  path: string;
  before: string | null;
  before_sha256: string | null;
  after: string;
  after_sha256: string;
}

export interface ApplyResult {
  applied: boolean;
  reason?: string;
  /** What rollback needs to find this write again (a brain history state, or the written text's hash). */
  rollback_ref: string;
}

export interface RollbackResult {
  rolled_back: boolean;
  reason?: string;
}

/**
 * Writes approved changes into an agent's brain. The warden's implementation puts them through the soul guard
 * and the brain's history; `BrainFileApplier` writes a brain directory directly for a host with no warden. An
 * implementation applies a change only while the file still holds `before` (compare, then write), and rolls
 * back only while it still holds `after`, so nobody's later edit is overwritten.
 */
export interface PromotionApplier {
  /** The file's current text, or null when it does not exist. */
  read(path: string): Promise<string | null>;
  apply(change: PromotionChange): Promise<ApplyResult>;
  rollback(ref: string, change: PromotionChange): Promise<RollbackResult>;
}

/** The text after appending the proposal's line; undefined when the file already holds that line. */
export function appendLineText(before: string | null, change: ProposedChange): string | undefined {
  const base = before ?? change.header;
  if (base.split("\n").includes(change.line)) return undefined;
  const separated = base === "" || base.endsWith("\n") ? base : `${base}\n`;
  return `${separated}${change.line}\n`;
}

export function prepareChange(
  proposalId: string,
  change: ProposedChange,
  before: string | null,
): PromotionChange | undefined {
  const after = appendLineText(before, change);
  if (after === undefined) return undefined;
  return {
    proposal_id: proposalId,
    path: change.path,
    before,
    before_sha256: before === null ? null : sha256Hex(before),
    after,
    after_sha256: sha256Hex(after),
  };
}
