import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { GovernanceReport, PromotionResult, ProposalDetail } from "../api/evolution-endpoints.js";
import { createGenerations } from "../shared/generation.js";

export interface EvolutionState {
  report: GovernanceReport | null;
  /** The proposal opened: its change, gate checks, target brain and evidence chain. */
  open: ProposalDetail | null;
  /** The last promotion or dry run: each file's text before and after. */
  promotion: PromotionResult | null;
  message: { level: "error" | "info"; text: string } | null;
  loading: boolean;
  /** An operator step is on its way: the buttons wait for it. */
  busy: boolean;
}

export type EvolutionAction =
  | { type: "start" }
  | { type: "open"; proposalId: string }
  | { type: "close" }
  | { type: "review"; proposalId: string; decision: "approve" | "reject"; reason?: string }
  | { type: "promote"; dryRun: boolean; proposalId?: string }
  | { type: "rollback"; proposalId: string };

/**
 * Evolution governance for admins: the governance report, a proposal's evidence chain from raw envelope to
 * projected record, and the review queue's steps (approve, reject, promote, roll back), each followed by a reload.
 */
export function createEvolutionController(api: ApiClient) {
  const [state, setState] = createStore<EvolutionState>({
    report: null,
    open: null,
    promotion: null,
    message: null,
    loading: false,
    busy: false,
  });
  const generations = createGenerations();
  const fail = (text: string) => setState("message", { level: "error", text });
  const info = (text: string) => setState("message", { level: "info", text });

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState("loading", true);
    const answer = await api.call("GET /api/evolution/governance");
    if (!generations.isCurrent("load", ticket)) return;
    setState("loading", false);
    if (!answer.ok) return fail(`The governance report could not load: ${answer.error.message}`);
    setState("report", answer.data);
  }

  async function open(proposalId: string): Promise<void> {
    const ticket = generations.next("open");
    const answer = await api.call("GET /api/evolution/proposals/:id", { params: { id: proposalId } });
    if (!generations.isCurrent("open", ticket)) return;
    if (!answer.ok) return fail(`The proposal could not load: ${answer.error.message}`);
    setState("open", answer.data);
  }

  /** Runs one operator step, then reloads the report and the open proposal. */
  async function step(work: () => Promise<string | undefined>): Promise<void> {
    setState("busy", true);
    try {
      const done = await work();
      if (done) info(done);
    } finally {
      setState("busy", false);
    }
    await load();
    if (state.open) await open(state.open.proposal.proposal_id);
  }

  async function dispatch(action: EvolutionAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return load();
      case "open":
        return open(action.proposalId);
      case "close":
        generations.next("open");
        return void setState("open", null);
      case "review":
        return step(async () => {
          const answer = await api.call("POST /api/evolution/review", {
            body: {
              proposal_id: action.proposalId,
              decision: action.decision,
              ...(action.reason?.trim() ? { reason: action.reason.trim() } : {}),
            },
          });
          if (!answer.ok) return void fail(`The review was not recorded: ${answer.error.message}`);
          return `Proposal ${action.proposalId} is ${answer.data.status}.`;
        });
      case "promote":
        return step(async () => {
          const answer = await api.call("POST /api/evolution/promote", {
            body: {
              dry_run: action.dryRun,
              ...(action.proposalId ? { proposal_ids: [action.proposalId] } : {}),
            },
          });
          if (!answer.ok) return void fail(`Nothing was promoted: ${answer.error.message}`);
          setState("promotion", answer.data);
          return describePromotion(answer.data);
        });
      case "rollback":
        return step(async () => {
          const answer = await api.call("POST /api/evolution/rollback", {
            body: { proposal_id: action.proposalId },
          });
          if (!answer.ok) return void fail(`The promotion was not rolled back: ${answer.error.message}`);
          return `Rolled back ${action.proposalId} in ${answer.data.user_id}'s brain.`;
        });
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

/** One line for the operator: how many changes were (or would be) written, and each refusal's reason. */
export function describePromotion(result: PromotionResult): string {
  if (result.changes.length === 0) return "No approved proposal to promote.";
  return result.changes
    .map((c) => {
      const where = `${c.path}${c.user_id ? ` of ${c.user_id}` : ""}`;
      switch (c.outcome) {
        case "would_apply":
          return `Would change ${where}.`;
        case "applied":
        case "recovered":
          return `Changed ${where}.`;
        case "already_present":
          return `${where} already holds the change.`;
        default:
          return `Refused ${c.proposal_id}: ${c.reason ?? "no reason given"}.`;
      }
    })
    .join(" ");
}

export type EvolutionController = ReturnType<typeof createEvolutionController>;
