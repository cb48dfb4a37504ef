import { canonicalJson, sha256Hex } from "../../core/index.js";
import { derivedUuid } from "../store/index.js";
import { type FeedbackItem, type FeedbackSet, isNegative } from "./feedback-set.js";
import {
  capabilityGateChecks,
  type GatePolicy,
  readinessOf,
  riskOf,
  skillGateChecks,
} from "./gate-policy.js";
import {
  byKindThenSubject,
  type EvidenceRecord,
  type GateCheck,
  type Proposal,
  type ProposalKind,
  type ProposedChange,
} from "./proposal.js";

const CAPABILITIES_FILE = "instructions/capabilities.md";
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The instruction file of a skill; an id that is not a plain name never becomes a path as it is. */
export function skillInstructionPath(skill: string): string {
  return `instructions/skill-${PLAIN.test(skill) ? skill : `_${sha256Hex(skill).slice(0, 16)}`}.md`;
}

function skillChange(skill: string): ProposedChange {
  const name = PLAIN.test(skill) ? skill : JSON.stringify(skill);
  return {
    operation: "append_line",
    path: skillInstructionPath(skill),
    header: `# Skill: ${name}\n\nNotes the agent follows when it uses the skill ${name}. Each line was added by an approved evolution proposal.\n`,
    line:
      `- Sessions that used ${name} were judged failed or scored low. Before finishing such a task, list what it ` +
      "asked for, check each point, and say plainly which ones you could not verify.",
  };
}

function capabilityChange(capability: string): ProposedChange {
  return {
    operation: "append_line",
    path: CAPABILITIES_FILE,
    header:
      "# Capabilities\n\nWhat users found missing. Each line was added by an approved evolution proposal.\n",
    // Quoted: the text comes from feedback, so it stands in the prompt as data, never as an instruction.
    line:
      `- Users reported this capability missing: ${JSON.stringify(capability)}. When a task needs it, say so at ` +
      "the start and ask how to proceed instead of guessing.",
  };
}

/** Feedback items by session, oldest first; the last is the session's outcome. */
function bySession(items: readonly FeedbackItem[]): Map<string, FeedbackItem[]> {
  const sessions = new Map<string, FeedbackItem[]>();
  for (const item of items) sessions.set(item.session_id, [...(sessions.get(item.session_id) ?? []), item]);
  return sessions;
}

const outcome = (items: readonly FeedbackItem[]) => items[items.length - 1] as FeedbackItem;

function evidenceOf(items: readonly FeedbackItem[]): EvidenceRecord[] {
  return items.map((i) => ({
    record_id: i.record_id,
    source: i.source,
    session_id: i.session_id,
    status: i.status,
    score: i.score,
    comment: i.comment,
    occurred_at: i.occurred_at,
    source_envelope_id: i.source_envelope_id,
    source_event_id: i.source_event_id,
    negative: isNegative(i),
  }));
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const normalise = (text: string) => text.trim().replace(/\s+/g, " ");

interface Draft {
  kind: ProposalKind;
  subject: string;
  summary: string;
  change: ProposedChange;
  sessions: FeedbackItem[][];
  evidence: FeedbackItem[];
  checks: GateCheck[];
}

function finish(draft: Draft): Proposal {
  const outcomes = draft.sessions.map(outcome);
  const negative = outcomes.filter(isNegative).length;
  const proposal_id = derivedUuid(
    "evolution-proposal",
    draft.kind,
    draft.subject,
    canonicalJson(draft.change),
  );
  const risk = riskOf(draft.kind, draft.subject, { sessions: outcomes.length, negative_sessions: negative });
  const { readiness, reasons } = readinessOf(draft.checks, risk.level);
  return {
    proposal_id,
    kind: draft.kind,
    subject: draft.subject,
    summary: draft.summary,
    target: { brain: "user", file_kind: "instruction_file", path: draft.change.path },
    change: draft.change,
    evidence: {
      sessions: outcomes.length,
      negative_sessions: negative,
      mean_score:
        outcomes.length === 0 ? 0 : round(outcomes.reduce((s, i) => s + i.score, 0) / outcomes.length),
      records: evidenceOf(draft.evidence),
    },
    gate: { name: "feedback_evidence_gate", passed: draft.checks.every((c) => c.met), checks: draft.checks },
    readiness,
    readiness_reasons: reasons,
    risk,
    operator_actions: {
      approve: `ironclaw evolution review approve ${proposal_id} --reason '<why>'`,
      reject: `ironclaw evolution review reject ${proposal_id} --reason '<why>'`,
      promote_dry_run: `ironclaw evolution promote ${proposal_id} --user <user> --dry-run`,
      promote: `ironclaw evolution promote ${proposal_id} --user <user>`,
      rollback: `ironclaw evolution rollback ${proposal_id} --user <user>`,
    },
    rollback: {
      strategy: "restore_previous_text",
      path: draft.change.path,
      note: "rollback restores the file's text from before the promotion (removes it if the promotion created it), only while the file still holds what the promotion wrote",
    },
  };
}

/**
 * The local pipeline (seed 004, no model): a skill whose sessions ended failed or low-scored gets a line in its
 * own instruction file; a capability reported missing gets a line in instructions/capabilities.md. A session's
 * outcome is its latest feedback. Proposals come sorted by kind, then subject.
 */
export function buildProposals(set: FeedbackSet, policy: GatePolicy): Proposal[] {
  const sessions = bySession(set.items);
  const drafts: Draft[] = [];
  const skills = new Set(set.items.flatMap((i) => i.selected_skill_ids));
  for (const skill of skills) {
    const used = [...sessions.values()].filter((s) => s.some((i) => i.selected_skill_ids.includes(skill)));
    const negative = used.filter((s) => isNegative(outcome(s))).length;
    if (negative === 0) continue;
    drafts.push({
      kind: "skill_prompt_metadata",
      subject: skill,
      summary: `${negative} of ${used.length} sessions that used the skill ${skill} ended failed or scored below 0.5`,
      change: skillChange(skill),
      sessions: used,
      evidence: used.flat(),
      checks: skillGateChecks({ skill, sessions: used.length, negative_sessions: negative }, policy),
    });
  }
  const capabilities = new Map<string, { forms: Set<string>; items: FeedbackItem[] }>();
  for (const item of set.items)
    for (const raw of new Set(item.missing_capabilities.map(normalise).filter((c) => c !== ""))) {
      const key = raw.toLowerCase();
      const group = capabilities.get(key) ?? { forms: new Set(), items: [] };
      group.forms.add(raw);
      group.items.push(item);
      capabilities.set(key, group);
    }
  for (const { forms, items } of capabilities.values()) {
    // The spelling of the earliest report (items are in time order): the same records always give the same one.
    const capability = [...forms][0] as string;
    const reporting = [...new Set(items.map((i) => i.session_id))];
    drafts.push({
      kind: "capability_instruction",
      subject: capability,
      summary: `${reporting.length} session(s) reported the capability ${JSON.stringify(capability)} missing`,
      change: capabilityChange(capability),
      sessions: reporting.map((id) => sessions.get(id) ?? []),
      evidence: items,
      checks: capabilityGateChecks({ capability, reporting_sessions: reporting.length }, policy),
    });
  }
  return drafts.map(finish).sort(byKindThenSubject);
}
