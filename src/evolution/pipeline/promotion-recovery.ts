import { sha256Hex } from "../../core/index.js";
import type { PromotionApplier } from "./promotion-applier.js";
import type { ArtifactChange } from "./promotion-artifact.js";
import { type ReviewQueue, transition, withPending } from "./review-queue.js";

/**
 * Settles promotions a crash interrupted between the write and the queue recording it. The file says what
 * happened: holding the prepared text, the write landed and the proposal is promoted now (its rollback restores
 * the recorded text from before); holding anything else, it did not, and the proposal stays approved.
 */
export async function settleInterrupted(
  queue: ReviewQueue,
  options: { applier: PromotionApplier; operator: string; at: string },
): Promise<{ queue: ReviewQueue; changes: ArtifactChange[] }> {
  let next = queue;
  const changes: ArtifactChange[] = [];
  for (const entry of queue.entries) {
    const pending = entry.pending_promotion;
    if (!pending) continue;
    next = withPending(next, entry.proposal_id, null);
    if (entry.status !== "approved") continue;
    const now = await options.applier.read(pending.path);
    if (now === null || sha256Hex(now) !== pending.after_sha256) continue;
    const rollback_ref = `recovered:${pending.path}@sha256:${pending.after_sha256}`;
    const { prepared_at, proposal_id: _id, ...texts } = pending;
    next = transition(
      next,
      entry.proposal_id,
      "promote",
      {
        operator: options.operator,
        reason: "the write of an interrupted promotion had landed",
        at: options.at,
      },
      { ...texts, rollback_ref, promoted_at: prepared_at },
    );
    changes.push({
      proposal_id: entry.proposal_id,
      kind: entry.kind,
      subject: entry.subject,
      ...texts,
      outcome: "recovered",
      reason: "the write of an interrupted promotion had landed",
      rollback_ref,
    });
  }
  return { queue: next, changes };
}
