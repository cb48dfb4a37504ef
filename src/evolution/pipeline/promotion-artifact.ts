import type { ReviewEntry } from "./review-queue.js";

export type ChangeOutcome = "would_apply" | "applied" | "already_present" | "refused" | "recovered";

export interface ArtifactChange {
  proposal_id: string;
  kind: ReviewEntry["kind"];
  subject: string;
  path: string;
  outcome: ChangeOutcome;
  reason: string | null;
  before: string | null;
  after: string | null;
  before_sha256: string | null;
  after_sha256: string | null;
  rollback_ref: string | null;
}

/** reports/latest_promotion_artifact.json: the exact file changes of a promotion or a dry run. */
export interface PromotionArtifact {
  report_kind: "promotion_artifact";
  dry_run: boolean;
  at: string;
  operator: string;
  changes: ArtifactChange[];
}
