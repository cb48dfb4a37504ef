import { ConflictError } from "../../core/index.js";
import {
  type PromotionApplier,
  type PromotionChange,
  prepareChange,
  type RollbackResult,
} from "./promotion-applier.js";
import type { ArtifactChange, PromotionArtifact } from "./promotion-artifact.js";
import { settleInterrupted } from "./promotion-recovery.js";
import {
  type Actor,
  checkActor,
  findEntry,
  type ReviewEntry,
  type ReviewQueue,
  refusal,
  transition,
  withPending,
} from "./review-queue.js";

export type { ArtifactChange, ChangeOutcome, PromotionArtifact } from "./promotion-artifact.js";

interface PromoteOptions {
  applier: PromotionApplier;
  /** Persists the queue; called with the change recorded as pending just before each write. */
  persist: (queue: ReviewQueue) => void;
  dryRun: boolean;
  operator: string;
  proposalIds?: readonly string[];
  at: string;
}

/** The entries to promote: the named ones, each checked first (nothing is written if one is refused), or every approved one. */
function chosen(queue: ReviewQueue, ids: readonly string[] | undefined): ReviewEntry[] {
  if (ids === undefined || ids.length === 0) return queue.entries.filter((e) => e.status === "approved");
  return [...new Set(ids)].map((id) => {
    const entry = findEntry(queue, id);
    const refused = refusal(entry, "promote");
    if (refused) throw new ConflictError(refused);
    return entry;
  });
}

export async function promoteApproved(
  queue: ReviewQueue,
  options: PromoteOptions,
): Promise<{ artifact: PromotionArtifact; queue: ReviewQueue }> {
  checkActor({ operator: options.operator });
  const settled = await settleInterrupted(queue, options);
  if (settled.changes.length > 0) options.persist(settled.queue);
  let next = settled.queue;
  const changes: ArtifactChange[] = [...settled.changes];
  for (const entry of chosen(next, options.proposalIds)) {
    const base = {
      proposal_id: entry.proposal_id,
      kind: entry.kind,
      subject: entry.subject,
      path: entry.change.path,
    };
    const refused = refusal(entry, "promote");
    const before = await options.applier.read(entry.change.path);
    const change = prepareChange(entry.proposal_id, entry.change, before);
    const texts = {
      before,
      after: change?.after ?? null,
      before_sha256: change?.before_sha256 ?? null,
      after_sha256: change?.after_sha256 ?? null,
    };
    if (refused) {
      changes.push({ ...base, ...texts, outcome: "refused", reason: refused, rollback_ref: null });
    } else if (change === undefined) {
      changes.push({
        ...base,
        ...texts,
        outcome: "already_present",
        reason: `${entry.change.path} already holds the line`,
        rollback_ref: null,
      });
    } else if (options.dryRun) {
      changes.push({ ...base, ...texts, outcome: "would_apply", reason: null, rollback_ref: null });
    } else {
      next = withPending(next, entry.proposal_id, { ...change, prepared_at: options.at });
      options.persist(next);
      const applied = await options.applier.apply(change);
      next = withPending(next, entry.proposal_id, null);
      changes.push({
        ...base,
        ...texts,
        outcome: applied.applied ? "applied" : "refused",
        reason: applied.reason ?? null,
        rollback_ref: applied.applied ? applied.rollback_ref : null,
      });
      if (applied.applied)
        next = transition(
          next,
          entry.proposal_id,
          "promote",
          { operator: options.operator, at: options.at },
          {
            path: change.path,
            before: change.before,
            after: change.after,
            before_sha256: change.before_sha256,
            after_sha256: change.after_sha256,
            rollback_ref: applied.rollback_ref,
            promoted_at: options.at,
          },
        );
    }
  }
  const artifact: PromotionArtifact = {
    report_kind: "promotion_artifact",
    dry_run: options.dryRun,
    at: options.at,
    operator: options.operator,
    changes,
  };
  return { artifact, queue: next };
}

export async function rollbackPromotion(
  queue: ReviewQueue,
  proposalId: string,
  options: { applier: PromotionApplier; at: string } & Actor,
): Promise<{ result: RollbackResult; queue: ReviewQueue }> {
  checkActor(options);
  const entry = findEntry(queue, proposalId);
  const refused = refusal(entry, "rollback");
  if (refused) throw new ConflictError(refused);
  const promotion = entry.promotion as NonNullable<ReviewEntry["promotion"]>;
  const change: PromotionChange = {
    proposal_id: proposalId,
    path: promotion.path,
    before: promotion.before,
    before_sha256: promotion.before_sha256,
    after: promotion.after,
    after_sha256: promotion.after_sha256,
  };
  const result = await options.applier.rollback(promotion.rollback_ref, change);
  if (!result.rolled_back) return { result, queue };
  return {
    result,
    queue: transition(queue, proposalId, "rollback", {
      operator: options.operator,
      reason: options.reason ?? null,
      at: options.at,
    }),
  };
}
