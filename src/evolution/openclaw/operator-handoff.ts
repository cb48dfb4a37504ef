import { join } from "node:path";
import type {
  CompleteRuntimeEventEnvelope,
  OperatorCheckpoint,
  OperatorSessionArtifact,
  ProjectedFeedbackRecord,
} from "../../contracts/index.js";
import { STATE_FILES } from "../store/index.js";
import { resumeCommands } from "./resume-commands.js";
import { artifactMissingCapabilities, artifactSkills, lastCheckpoint } from "./session-adapter.js";

export const HANDOFF_REPORT_KIND = "openclaw_operator_handoff";

/** Whether the artifact closed the session: an outcome was imported, or the next operator still owes one. */
export type HandoffState = "completed" | "awaiting_feedback";

/** reports/openclaw_operator_handoff_<session>.json: what the next local operator needs to resume. */
export interface OperatorHandoff {
  report_kind: typeof HANDOFF_REPORT_KIND;
  session_id: string;
  task: string;
  source: string;
  session_state: HandoffState;
  operator: string | null;
  assignee: string | null;
  summary: string;
  next_action: string;
  notes: string[];
  selected_skill_ids: string[];
  missing_capabilities: string[];
  checkpoint_count: number;
  last_checkpoint: OperatorCheckpoint | null;
  outcome: { status: string; score: number; comment: string | null; occurred_at: string } | null;
  state_paths: {
    state_dir: string;
    runtime_event_envelopes: string;
    projected_feedback: string;
    reports: string;
  };
  resume_commands: Record<string, string>;
  adapted_envelope_ids: string[];
  projected_record_ids: string[];
}

const notesOf = (notes: string | string[] | undefined): string[] =>
  notes === undefined ? [] : typeof notes === "string" ? [notes] : notes;

/**
 * The handoff for the next operator. Summary and next action are the artifact's own when it has a handoff;
 * otherwise they say what the import found, so a handoff never lacks either. Built from the artifact, the
 * stored evidence and the state directory alone, so the same import always writes the same bytes.
 */
export function buildOperatorHandoff(input: {
  artifact: OperatorSessionArtifact;
  envelopes: readonly CompleteRuntimeEventEnvelope[];
  records: readonly ProjectedFeedbackRecord[];
  stateDir: string;
  bundlePath: string;
}): OperatorHandoff {
  const { artifact, stateDir } = input;
  const { session, outcome, handoff } = artifact;
  const completed = outcome !== undefined;
  return {
    report_kind: HANDOFF_REPORT_KIND,
    session_id: session.session_id,
    task: session.task,
    source: artifact.source,
    session_state: completed ? "completed" : "awaiting_feedback",
    operator: session.operator ?? null,
    assignee: handoff?.assignee ?? null,
    summary:
      handoff?.summary ??
      (completed
        ? `Imported with a terminal outcome (${outcome.status}, score ${outcome.score}).`
        : "Imported without a terminal outcome: the session still needs its feedback."),
    next_action:
      handoff?.next_action ??
      (completed
        ? "Inspect the imported evidence chain before acting on evolution output."
        : "Continue the session, or send its session_feedback with ironclaw evolution ingest."),
    notes: notesOf(handoff?.notes),
    selected_skill_ids: artifactSkills(artifact),
    missing_capabilities: artifactMissingCapabilities(artifact),
    checkpoint_count: artifact.timeline.length,
    last_checkpoint: lastCheckpoint(artifact),
    outcome: outcome
      ? {
          status: outcome.status,
          score: outcome.score,
          comment: outcome.comment ?? null,
          occurred_at: outcome.occurred_at,
        }
      : null,
    state_paths: {
      state_dir: stateDir,
      runtime_event_envelopes: join(stateDir, STATE_FILES.envelopes),
      projected_feedback: join(stateDir, STATE_FILES.projected),
      reports: join(stateDir, STATE_FILES.reports),
    },
    resume_commands: resumeCommands(stateDir, input.bundlePath),
    adapted_envelope_ids: input.envelopes.map((e) => e.envelope_id),
    projected_record_ids: input.records.map((r) => r.record_id),
  };
}
