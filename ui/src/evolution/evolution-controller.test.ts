import { describe, expect, it } from "vitest";
import type { GovernanceReport, GovernanceRow, ProposalDetail } from "../api/evolution-endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createEvolutionController, describePromotion } from "./evolution-controller.js";

const ID = "6d2df7a4-aa4f-5eac-a6d7-4833722b9674";

const row = (over: Partial<GovernanceRow> = {}): GovernanceRow => ({
  proposal_id: ID,
  kind: "skill_prompt_metadata",
  subject: "file",
  target_path: "instructions/skill-file.md",
  readiness: "ready_for_promotion",
  readiness_reasons: ["every gate check passed and the risk is low"],
  risk_level: "low",
  review_status: "pending",
  last_decision: null,
  rollback_ref: null,
  in_latest_report: true,
  next_action: "",
  ...over,
});

const reportOf = (r: GovernanceRow): GovernanceReport => ({
  report_kind: "governance_report",
  generated_from: { projected_feedback: 3 },
  counts: {},
  proposals: [r],
});

const detail: ProposalDetail = {
  proposal: {
    proposal_id: ID,
    kind: "skill_prompt_metadata",
    subject: "file",
    summary: "3 of 3 sessions that used the skill file ended failed",
    change: { operation: "append_line", path: "instructions/skill-file.md", header: "", line: "- check" },
    gate: { name: "feedback_evidence_gate", passed: true, checks: [] },
    readiness: "ready_for_promotion",
    readiness_reasons: [],
    risk: { level: "low", reasons: [] },
  },
  review: row(),
  target: { user_id: "ada", refusal: null },
  evidence: [],
};

/** A fake warden whose review queue moves as the real one does: pending → approved → promoted → rolled back. */
function warden() {
  let current = row();
  const { client, calls } = fakeApi({
    "GET /api/evolution/governance": () => ok(reportOf(current)),
    "GET /api/evolution/proposals/:id": () => ok({ ...detail, review: current }),
    "POST /api/evolution/review": (args) => {
      const decision = (args.body as { decision: string }).decision;
      current = row({ review_status: decision === "approve" ? "approved" : "rejected" });
      return ok({ proposal_id: ID, status: current.review_status, history: [] });
    },
    "POST /api/evolution/promote": (args) => {
      const dry = (args.body as { dry_run: boolean }).dry_run;
      if (!dry) current = row({ review_status: "promoted" });
      return ok({
        dry_run: dry,
        at: "2026-11-28T01:00:00.000Z",
        operator: "boss",
        changes: [
          {
            proposal_id: ID,
            user_id: "ada",
            path: "instructions/skill-file.md",
            outcome: dry ? "would_apply" : "applied",
            reason: null,
            before: "a\n",
            after: "a\n- check\n",
            rollback_ref: dry ? null : "warden-brain:ada:instructions/skill-file.md@sha256:00",
          },
        ],
      });
    },
    "POST /api/evolution/rollback": () => {
      current = row({ review_status: "rolled_back" });
      return ok({ proposal_id: ID, user_id: "ada", rolled_back: true });
    },
  });
  return { client, calls };
}

describe("the evolution screen's controller", () => {
  it("walks a proposal through approve, promote and roll back, reloading the report after each step", async () => {
    const { client, calls } = warden();
    const controller = createEvolutionController(client);
    await controller.dispatch({ type: "start" });
    expect(controller.state.report?.proposals[0]?.review_status).toBe("pending");
    await controller.dispatch({ type: "open", proposalId: ID });
    expect(controller.state.open?.target.user_id).toBe("ada");

    await controller.dispatch({
      type: "review",
      proposalId: ID,
      decision: "approve",
      reason: "  three bad  ",
    });
    expect(calls.find((c) => c.key === "POST /api/evolution/review")?.args).toEqual({
      body: { proposal_id: ID, decision: "approve", reason: "three bad" },
    });
    expect(controller.state.report?.proposals[0]?.review_status).toBe("approved");
    expect(controller.state.open?.review.review_status).toBe("approved");

    await controller.dispatch({ type: "promote", dryRun: false, proposalId: ID });
    expect(calls.find((c) => c.key === "POST /api/evolution/promote")?.args).toEqual({
      body: { dry_run: false, proposal_ids: [ID] },
    });
    expect(controller.state.message).toEqual({
      level: "info",
      text: "Changed instructions/skill-file.md of ada.",
    });
    expect(controller.state.report?.proposals[0]?.review_status).toBe("promoted");

    await controller.dispatch({ type: "rollback", proposalId: ID });
    expect(controller.state.message?.text).toBe(`Rolled back ${ID} in ada's brain.`);
    expect(controller.state.report?.proposals[0]?.review_status).toBe("rolled_back");
    controller.dispose();
  });

  it("shows the warden's refusal and keeps the report as it is", async () => {
    const { client } = fakeApi({
      "GET /api/evolution/governance": () => ok(reportOf(row({ review_status: "approved" }))),
      "POST /api/evolution/rollback": () =>
        refused(409, "conflict", `proposal ${ID} is approved, not promoted: there is nothing to roll back`),
    });
    const controller = createEvolutionController(client);
    await controller.dispatch({ type: "start" });
    await controller.dispatch({ type: "rollback", proposalId: ID });
    expect(controller.state.message).toEqual({
      level: "error",
      text: `The promotion was not rolled back: proposal ${ID} is approved, not promoted: there is nothing to roll back`,
    });
    expect(controller.state.report?.proposals[0]?.review_status).toBe("approved");
    controller.dispose();
  });

  it("says why a proposal was refused, and when nothing was approved", () => {
    expect(describePromotion({ dry_run: true, at: "", operator: "boss", changes: [] })).toBe(
      "No approved proposal to promote.",
    );
    const refusedChange = {
      proposal_id: ID,
      user_id: null,
      path: "instructions/capabilities.md",
      outcome: "refused" as const,
      reason: "its evidence comes from the sessions of several users (ada, bob)",
      before: null,
      after: null,
      rollback_ref: null,
    };
    expect(describePromotion({ dry_run: false, at: "", operator: "boss", changes: [refusedChange] })).toBe(
      `Refused ${ID}: its evidence comes from the sessions of several users (ada, bob).`,
    );
  });
});
