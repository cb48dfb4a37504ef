import { ConflictError, hashCanonical } from "../../core/index.js";
import type { EvolutionStore } from "../store/index.js";
import { buildFeedbackSet, type FeedbackSet } from "./feedback-set.js";
import { DEFAULT_GATE_POLICY, type GatePolicy } from "./gate-policy.js";
import { PipelineFiles } from "./pipeline-files.js";
import { withPipelineLock } from "./pipeline-lock.js";
import { type PromotionArtifact, promoteApproved, rollbackPromotion } from "./promotion.js";
import type { PromotionApplier, RollbackResult } from "./promotion-applier.js";
import { buildProposals } from "./proposals.js";
import {
  buildEvolutionReport,
  buildGovernanceReport,
  type EvolutionReport,
  type GovernanceReport,
  renderGovernanceMarkdown,
} from "./reports.js";
import {
  type Actor,
  emptyQueue,
  findEntry,
  mergeProposals,
  type ReviewEntry,
  type ReviewQueue,
  transition,
} from "./review-queue.js";
import { recordStep, type WorkflowStepKind } from "./workflow.js";

export interface PipelineOptions {
  policy?: GatePolicy;
  /** The clock of operator steps (review, promote, rollback); evolve never reads it. */
  now?: () => Date;
}

export interface PipelineView {
  feedback: FeedbackSet;
  evolution: EvolutionReport;
  queue: ReviewQueue;
  governance: GovernanceReport;
}

/**
 * Seed 004's proposals and governance over one state directory: the deterministic local pipeline (no model),
 * the operator review queue, promotion through an injected applier, and rollback. Every step that changes
 * something rewrites the reports and appends itself to workflow_history.jsonl.
 */
export class EvolutionPipeline {
  private readonly files: PipelineFiles;
  private readonly policy: GatePolicy;
  private readonly now: () => Date;

  constructor(
    private readonly store: EvolutionStore,
    options: PipelineOptions = {},
  ) {
    this.files = new PipelineFiles(store.stateDir);
    this.policy = options.policy ?? DEFAULT_GATE_POLICY;
    this.now = options.now ?? (() => new Date());
  }

  /** The proposals the feedback gives now, merged into the persisted review queue; writes nothing. */
  view(): PipelineView {
    const feedback = buildFeedbackSet(this.store.projected(), this.store.events());
    const evolution = buildEvolutionReport(feedback, this.policy, buildProposals(feedback, this.policy));
    const queue = mergeProposals(
      this.files.readJson<ReviewQueue>("operatorReview") ?? emptyQueue(),
      evolution.proposals,
    );
    return { feedback, evolution, queue, governance: buildGovernanceReport(evolution, queue) };
  }

  /** The evolve step: writes the evolution and governance reports and the review queue. Returns the paths written. */
  writeReports(): Promise<{ view: PipelineView; paths: string[] }> {
    return this.locked(async () => {
      const view = this.view();
      const paths = this.persist(view, view.queue);
      this.record(view.queue, "evolve", view.feedback.latest_record_at, {
        proposals: view.evolution.proposals.length,
        evolution_report_sha256: hashCanonical(view.evolution),
      });
      return { view, paths };
    });
  }

  /** Approves or rejects a proposal, persisted before it returns. */
  review(proposalId: string, decision: "approve" | "reject", actor: Actor): Promise<ReviewEntry> {
    return this.locked(async () => {
      const view = this.view();
      const at = this.now().toISOString();
      const queue = transition(view.queue, proposalId, decision, { ...actor, at });
      this.persist(view, queue);
      this.record(queue, "review", at, {
        proposal_id: proposalId,
        decision,
        operator: actor.operator,
        reason: actor.reason ?? null,
      });
      return findEntry(queue, proposalId);
    });
  }

  /**
   * Promotes approved proposals (all of them, or those named, each of which must be promotable): computes each
   * file's exact text before and after, and unless dryRun hands it to the applier. Writes the promotion artifact.
   */
  promote(options: {
    applier: PromotionApplier;
    dryRun: boolean;
    operator: string;
    proposalIds?: readonly string[];
  }): Promise<PromotionArtifact> {
    return this.locked(async () => {
      const view = this.view();
      const at = this.now().toISOString();
      const persist = (queue: ReviewQueue) => this.persist(view, queue);
      const { artifact, queue } = await promoteApproved(view.queue, { ...options, at, persist });
      this.files.writeJson("promotionArtifact", artifact);
      this.persist(view, queue);
      this.record(queue, "promote", at, {
        dry_run: options.dryRun,
        operator: options.operator,
        changes: artifact.changes.map((c) => ({
          proposal_id: c.proposal_id,
          outcome: c.outcome,
          rollback_ref: c.rollback_ref,
        })),
      });
      return artifact;
    });
  }

  /** Reverts a promoted proposal through the applier; refused (naming the id) unless it is promoted. */
  rollback(proposalId: string, options: { applier: PromotionApplier } & Actor): Promise<RollbackResult> {
    return this.locked(async () => {
      const view = this.view();
      const at = this.now().toISOString();
      const { result, queue } = await rollbackPromotion(view.queue, proposalId, { ...options, at });
      this.persist(view, queue);
      this.record(queue, "rollback", at, {
        proposal_id: proposalId,
        operator: options.operator,
        rolled_back: result.rolled_back,
        reason: result.reason ?? options.reason ?? null,
      });
      if (!result.rolled_back)
        throw new ConflictError(`proposal ${proposalId} was not rolled back: ${result.reason}`);
      return result;
    });
  }

  private locked<T>(work: () => Promise<T>): Promise<T> {
    return withPipelineLock(this.files.lockPath(), work);
  }

  private persist(view: PipelineView, queue: ReviewQueue): string[] {
    const governance = buildGovernanceReport(view.evolution, queue);
    return [
      this.files.writeJson("evolutionReport", view.evolution),
      this.files.writeJson("operatorReview", queue),
      this.files.writeJson("governanceJson", governance),
      this.files.writeText("governanceMd", renderGovernanceMarkdown(governance)),
    ];
  }

  private record(
    queue: ReviewQueue,
    step: WorkflowStepKind,
    at: string | null,
    detail: Record<string, unknown>,
  ): void {
    recordStep(this.files, { step, at, detail }, queue);
  }
}
