import type {
  EvidenceLink,
  GovernanceReportData,
  PromotionResult,
  PromotionResultChange,
  ProposalDetail,
} from "../../contracts/index.js";
import { ConflictError, NotFoundError } from "../../core/index.js";
import {
  EvolutionPipeline,
  type EvolutionStore,
  type Proposal,
  type ReviewEntry,
} from "../../evolution/index.js";
import { type BrainEditor, userOfRollbackRef, WardenPromotionApplier } from "./brain-promotion-applier.js";
import type { EvolutionFeed } from "./evolution-feed.js";

/** The warden's evolution state, and how a promotion edits a user's brain. */
type GovernanceDeps = { evolution: EvolutionFeed; editor: BrainEditor };

/** Whose brain a proposal changes: the one user whose sessions are its evidence, or why there is none. */
export type Target = { userId: string; refusal: null } | { userId: null; refusal: string };

/**
 * Seed 004 governance under the warden's admins: the report, one proposal with its evidence chain (projected
 * record → raw envelope), review, promotion into the brain of the user whose sessions are the evidence, and
 * rollback. Each call reads the state directory afresh, so the CLI's decisions on the same state are seen too.
 */
export class WardenGovernance {
  constructor(private readonly ctx: GovernanceDeps) {}

  private store(): EvolutionStore {
    return this.ctx.evolution.state();
  }

  private pipeline(): EvolutionPipeline {
    return new EvolutionPipeline(this.store());
  }

  report(): GovernanceReportData {
    return this.pipeline().view().governance;
  }

  proposal(id: string): ProposalDetail {
    const view = this.pipeline().view();
    const proposal = view.evolution.proposals.find((p) => p.proposal_id === id);
    const review = view.governance.proposals.find((row) => row.proposal_id === id);
    if (!proposal || !review) throw new NotFoundError("proposal", id);
    const target = this.targetOf(proposal);
    return {
      proposal,
      review,
      target: { user_id: target.userId, refusal: target.refusal },
      evidence: this.evidenceOf(proposal),
    };
  }

  review(id: string, decision: "approve" | "reject", operator: string, reason: string | null) {
    return this.pipeline().review(id, decision, { operator, reason });
  }

  /**
   * Promotes the approved proposals (or those named, each of which must be approved), each into its target
   * user's brain; a proposal whose target is ambiguous is listed as refused with the reason and never written.
   */
  async promote(options: {
    dryRun: boolean;
    operator: string;
    ids?: readonly string[];
  }): Promise<PromotionResult> {
    const pipeline = this.pipeline();
    const view = pipeline.view();
    const chosen = this.chosen(view.queue.entries, options.ids);
    const proposals = new Map(view.evolution.proposals.map((p) => [p.proposal_id, p]));
    const changes: PromotionResultChange[] = [];
    const byUser = new Map<string, string[]>();
    for (const entry of chosen) {
      const proposal = proposals.get(entry.proposal_id);
      const target: Target = proposal
        ? this.targetOf(proposal)
        : { userId: null, refusal: "the latest evolution run no longer proposes it" };
      if (target.userId === null)
        changes.push({
          proposal_id: entry.proposal_id,
          user_id: null,
          path: entry.target_path,
          outcome: "refused",
          reason: target.refusal,
          before: null,
          after: null,
          rollback_ref: null,
        });
      else byUser.set(target.userId, [...(byUser.get(target.userId) ?? []), entry.proposal_id]);
    }
    for (const [userId, ids] of byUser) {
      const applier = new WardenPromotionApplier(this.ctx.editor, userId, options.operator);
      const artifact = await pipeline.promote({ ...options, applier, proposalIds: ids });
      for (const c of artifact.changes)
        changes.push({
          proposal_id: c.proposal_id,
          user_id: userId,
          path: c.path,
          outcome: c.outcome,
          reason: c.reason,
          before: c.before,
          after: c.after,
          rollback_ref: c.rollback_ref,
        });
    }
    return { dry_run: options.dryRun, at: new Date().toISOString(), operator: options.operator, changes };
  }

  /** Restores the file a promoted proposal changed, in the brain the promotion wrote. */
  async rollback(id: string, operator: string, reason: string | null) {
    const pipeline = this.pipeline();
    const view = pipeline.view();
    const entry = view.queue.entries.find((e) => e.proposal_id === id);
    if (!entry) throw new NotFoundError("proposal", id);
    if (entry.status !== "promoted")
      throw new ConflictError(
        `proposal ${id} is ${entry.status}, not promoted: there is nothing to roll back`,
      );
    const recorded = userOfRollbackRef(entry.promotion?.rollback_ref ?? "");
    const proposal = view.evolution.proposals.find((p) => p.proposal_id === id);
    const userId = recorded ?? (proposal ? this.targetOf(proposal).userId : null);
    if (userId === null)
      throw new ConflictError(
        `proposal ${id} was promoted outside the warden and its brain cannot be told from its evidence: roll it back with the CLI`,
      );
    const applier = new WardenPromotionApplier(this.ctx.editor, userId, operator);
    const result = await pipeline.rollback(id, { applier, operator, reason });
    return { proposal_id: id, user_id: userId, rolled_back: result.rolled_back };
  }

  private chosen(entries: readonly ReviewEntry[], ids: readonly string[] | undefined): ReviewEntry[] {
    if (ids === undefined || ids.length === 0) return entries.filter((e) => e.status === "approved");
    return [...new Set(ids)].map((id) => {
      const entry = entries.find((e) => e.proposal_id === id);
      if (!entry) throw new NotFoundError("proposal", id);
      if (entry.status !== "approved")
        throw new ConflictError(`proposal ${id} is ${entry.status}: only an approved proposal is promoted`);
      return entry;
    });
  }

  /** The evidence sessions' owners (the store records who first sent each session) must be one warden user. */
  targetOf(proposal: Proposal): Target {
    const store = this.store();
    const owners = new Set(proposal.evidence.records.map((r) => store.sessionOwner(r.session_id) ?? null));
    const users = [...owners].filter((o): o is string => o !== null).sort();
    if (owners.size === 0) return { userId: null, refusal: "the proposal has no evidence sessions" };
    if (owners.has(null))
      return {
        userId: null,
        refusal:
          "some of its evidence sessions were sent by the host, not a warden user: promote it with the CLI",
      };
    if (users.length > 1)
      return {
        userId: null,
        refusal: `its evidence comes from the sessions of several users (${users.join(", ")}): whose brain to change is ambiguous`,
      };
    return { userId: users[0] as string, refusal: null };
  }

  private evidenceOf(proposal: Proposal): EvidenceLink[] {
    const store = this.store();
    const projected = new Map(store.projected().map((r) => [r.record_id, r]));
    const envelopes = new Map(store.envelopes().map((line) => [line.envelope.envelope_id, line]));
    return proposal.evidence.records.map((record) => {
      const line = record.source_envelope_id ? envelopes.get(record.source_envelope_id) : undefined;
      return {
        record_id: record.record_id,
        source: record.source,
        session_id: record.session_id,
        status: record.status,
        score: record.score,
        comment: record.comment,
        occurred_at: record.occurred_at,
        submitted_by: store.sessionOwner(record.session_id) ?? null,
        projected: projected.get(record.record_id) ?? null,
        raw_envelope: line?.raw ?? null,
      };
    });
  }
}
