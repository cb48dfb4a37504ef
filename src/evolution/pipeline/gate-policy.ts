import type { GateCheck, ProposalKind, Readiness, RiskLevel } from "./proposal.js";

/** The thresholds of the feedback evidence gate; every report carries the ones it was built with. */
export interface GatePolicy {
  /** Distinct sessions whose latest feedback was negative before a skill change may pass. */
  min_negative_sessions: number;
  /** The share of a skill's sessions that must be negative. */
  min_negative_share: number;
  /** Distinct sessions that must report a missing capability before it is added to the instructions. */
  min_reporting_sessions: number;
  /** Longest capability text placed in an instruction file (it comes from feedback: it is data, kept short). */
  max_subject_chars: number;
}

export const DEFAULT_GATE_POLICY: GatePolicy = {
  min_negative_sessions: 2,
  min_negative_share: 0.5,
  min_reporting_sessions: 2,
  max_subject_chars: 120,
};

/** A skill id that can name a file and a line of text as it is. */
const PLAIN_SKILL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Words that ask for reach rather than know-how: an instruction about them changes what the agent may try with
 * secrets, hosts or money, which a person decides.
 */
const ACCESS_WORDS =
  /\b(credentials?|secrets?|passwords?|tokens?|api[ _-]?keys?|sudo|root|admin(istrator)?|shell|network|internet|payments?|money|delete|deploy)\b/i;

export interface SkillObservation {
  skill: string;
  sessions: number;
  negative_sessions: number;
}

export interface CapabilityObservation {
  capability: string;
  reporting_sessions: number;
}

const check = (name: string, rule: string, threshold: number, observed: number): GateCheck => ({
  name,
  rule,
  threshold,
  observed,
  met: observed >= threshold,
});

export function skillGateChecks(o: SkillObservation, policy: GatePolicy): GateCheck[] {
  const share = o.sessions === 0 ? 0 : Math.round((o.negative_sessions / o.sessions) * 1000) / 1000;
  return [
    check(
      "negative_sessions",
      "at least this many sessions ended failed or low-scored",
      policy.min_negative_sessions,
      o.negative_sessions,
    ),
    check(
      "negative_share",
      "at least this share of the skill's sessions were negative",
      policy.min_negative_share,
      share,
    ),
    check(
      "plain_subject",
      "the skill id is a plain name (letters, digits, . _ -, at most 64)",
      1,
      PLAIN_SKILL_ID.test(o.skill) ? 1 : 0,
    ),
  ];
}

export function capabilityGateChecks(o: CapabilityObservation, policy: GatePolicy): GateCheck[] {
  return [
    check(
      "reporting_sessions",
      "at least this many sessions reported the capability missing",
      policy.min_reporting_sessions,
      o.reporting_sessions,
    ),
    check(
      "short_subject",
      `the capability is at most ${policy.max_subject_chars} characters`,
      1,
      o.capability.length <= policy.max_subject_chars ? 1 : 0,
    ),
  ];
}

/**
 * Risk by rule: a skill change touches only that skill's own instruction file and is low when every session of
 * the skill went badly, medium when some went well (the evidence disagrees). A capability line applies to every
 * session of the agent: medium, and high when it names access (credentials, shell, network, payments…).
 */
export function riskOf(
  kind: ProposalKind,
  subject: string,
  o: { sessions: number; negative_sessions: number },
): {
  level: RiskLevel;
  reasons: string[];
} {
  if (kind === "skill_prompt_metadata") {
    return o.negative_sessions === o.sessions
      ? {
          level: "low",
          reasons: [
            "changes only the skill's own instruction file",
            "every session of the skill was negative",
          ],
        }
      : {
          level: "medium",
          reasons: [
            "changes only the skill's own instruction file",
            `${o.sessions - o.negative_sessions} session(s) of the skill went well: the evidence is mixed`,
          ],
        };
  }
  const access = ACCESS_WORDS.exec(subject);
  return access
    ? {
        level: "high",
        reasons: [
          "applies to every session of the agent",
          `names access (${access[0]}): what the agent may reach is a person's decision`,
        ],
      }
    : { level: "medium", reasons: ["applies to every session of the agent"] };
}

/**
 * Readiness by rule: blocked while any gate check fails (each failed check is a reason); otherwise low risk is
 * ready for promotion and anything riskier needs an operator's review. Both still need an approval to promote.
 */
export function readinessOf(
  checks: readonly GateCheck[],
  risk: RiskLevel,
): { readiness: Readiness; reasons: string[] } {
  const failed = checks.filter((c) => !c.met);
  if (failed.length > 0)
    return {
      readiness: "blocked",
      reasons: failed.map((c) => `gate ${c.name}: observed ${c.observed}, needs ${c.threshold} (${c.rule})`),
    };
  if (risk !== "low") return { readiness: "operator_review_required", reasons: [`risk is ${risk}`] };
  return { readiness: "ready_for_promotion", reasons: ["every gate check passed and the risk is low"] };
}
