import { describe, expect, it } from "vitest";
import {
  capabilityGateChecks,
  DEFAULT_GATE_POLICY,
  readinessOf,
  riskOf,
  skillGateChecks,
} from "./gate-policy.js";

const policy = DEFAULT_GATE_POLICY;

describe("readiness and risk rules", () => {
  it("a skill whose every session failed, twice or more, is low risk and ready for promotion", () => {
    const checks = skillGateChecks({ skill: "code_review", sessions: 2, negative_sessions: 2 }, policy);
    const risk = riskOf("skill_prompt_metadata", "code_review", { sessions: 2, negative_sessions: 2 });
    expect(risk.level).toBe("low");
    expect(readinessOf(checks, risk.level).readiness).toBe("ready_for_promotion");
  });

  it("mixed evidence for a skill is medium risk and needs an operator's review", () => {
    const checks = skillGateChecks({ skill: "code_review", sessions: 3, negative_sessions: 2 }, policy);
    const risk = riskOf("skill_prompt_metadata", "code_review", { sessions: 3, negative_sessions: 2 });
    expect(risk.level).toBe("medium");
    expect(readinessOf(checks, risk.level).readiness).toBe("operator_review_required");
  });

  it("one negative session blocks, naming the gate check, its threshold and what was observed", () => {
    const checks = skillGateChecks({ skill: "summarize", sessions: 2, negative_sessions: 1 }, policy);
    const result = readinessOf(checks, "low");
    expect(result.readiness).toBe("blocked");
    expect(result.reasons).toEqual([expect.stringMatching(/^gate negative_sessions: observed 1, needs 2 /)]);
  });

  it("a negative share under the threshold blocks even with enough negative sessions", () => {
    const checks = skillGateChecks({ skill: "s", sessions: 5, negative_sessions: 2 }, policy);
    expect(readinessOf(checks, "medium").reasons).toEqual([
      expect.stringMatching(/^gate negative_share: observed 0.4, needs 0.5/),
    ]);
  });

  it("a skill id that is not a plain name is blocked, whatever the evidence", () => {
    const checks = skillGateChecks({ skill: "../soul", sessions: 4, negative_sessions: 4 }, policy);
    expect(readinessOf(checks, "low").reasons).toEqual([expect.stringMatching(/^gate plain_subject/)]);
  });

  it("a capability is medium risk, and high when it names access", () => {
    expect(
      riskOf("capability_instruction", "database migrations", { sessions: 2, negative_sessions: 2 }).level,
    ).toBe("medium");
    const shell = riskOf("capability_instruction", "shell access", { sessions: 2, negative_sessions: 2 });
    expect(shell).toMatchObject({
      level: "high",
      reasons: expect.arrayContaining([expect.stringContaining("(shell)")]),
    });
    const checks = capabilityGateChecks({ capability: "shell access", reporting_sessions: 2 }, policy);
    expect(readinessOf(checks, shell.level).readiness).toBe("operator_review_required");
  });

  it("a capability reported once, or longer than the policy allows, is blocked", () => {
    const once = capabilityGateChecks({ capability: "x", reporting_sessions: 1 }, policy);
    expect(readinessOf(once, "medium").reasons).toEqual([
      expect.stringMatching(/^gate reporting_sessions: observed 1, needs 2/),
    ]);
    const long = capabilityGateChecks({ capability: "y".repeat(121), reporting_sessions: 3 }, policy);
    expect(readinessOf(long, "medium").reasons).toEqual([expect.stringMatching(/^gate short_subject/)]);
  });
});
