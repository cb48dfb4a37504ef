import {
  type CompleteRuntimeEventEnvelope,
  type OperatorCheckpoint,
  type OperatorSessionArtifact,
  RUNTIME_EVENT_CONTRACT_NAME,
  RUNTIME_EVENT_CONTRACT_VERSION,
  RUNTIME_EVENT_SCHEMA_VERSION,
} from "../../contracts/index.js";
import { canonicalJson } from "../../core/index.js";
import { derivedUuid } from "../store/index.js";

/** The key under which the adapter's notes sit in envelope metadata, apart from anything else there. */
export const IMPORT_METADATA_KEY = "openclaw_import";

type Section = { selected_skill_ids?: string[]; missing_capabilities?: string[] };

/** Every section of the artifact in reading order: session, checkpoints, outcome, handoff. */
function sections(artifact: OperatorSessionArtifact): Section[] {
  return [artifact.session, ...artifact.timeline, artifact.outcome ?? {}, artifact.handoff ?? {}];
}

function orderedUnique(lists: Array<string[] | undefined>): string[] {
  return [...new Set(lists.flatMap((list) => list ?? []))];
}

export function lastCheckpoint(artifact: OperatorSessionArtifact): OperatorCheckpoint | null {
  return artifact.timeline.at(-1) ?? null;
}

export function artifactSkills(artifact: OperatorSessionArtifact): string[] {
  return orderedUnique(sections(artifact).map((s) => s.selected_skill_ids));
}

export function artifactMissingCapabilities(artifact: OperatorSessionArtifact): string[] {
  return orderedUnique(sections(artifact).map((s) => s.missing_capabilities));
}

/**
 * Seed 004 openclaw-import: the artifact becomes one session_started envelope carrying the ordered checkpoints
 * as steps, and one session_feedback envelope when it has a terminal outcome; envelope and event metadata keep
 * the checkpoint timeline, the last checkpoint, the operator and the handoff notes. Nothing is read from the
 * clock or drawn at random: times are the artifact's (recorded_at, started_at, the outcome's occurred_at) and
 * each id is derived from the content it names, so the same artifact always gives the same envelopes.
 */
export function adaptOperatorSession(artifact: OperatorSessionArtifact): CompleteRuntimeEventEnvelope[] {
  const { session, timeline, outcome, handoff } = artifact;
  const last = lastCheckpoint(artifact);
  const envelopeMetadata = {
    [IMPORT_METADATA_KEY]: {
      artifact_kind: artifact.artifact_kind,
      artifact_schema_version: artifact.schema_version,
      artifact_recorded_at: artifact.recorded_at,
      operator: session.operator ?? null,
      checkpoint_count: timeline.length,
      last_checkpoint_id: last?.checkpoint_id ?? null,
      handoff_summary: handoff?.summary ?? null,
      handoff_next_action: handoff?.next_action ?? null,
    },
  };
  const eventMetadata = {
    operator: session.operator ?? null,
    artifact_recorded_at: artifact.recorded_at,
    checkpoint_timeline: timeline,
    last_checkpoint: last,
    handoff: handoff ?? null,
    ...(session.notes === undefined ? {} : { session_notes: session.notes }),
    ...(session.metadata === undefined ? {} : { session_metadata: session.metadata }),
  };
  const shared = {
    session_id: session.session_id,
    task: session.task,
    steps: timeline.map((checkpoint) => checkpoint.step),
    selected_skill_ids: artifactSkills(artifact),
    missing_capabilities: artifactMissingCapabilities(artifact),
  };
  const envelopes = [
    envelopeFor(artifact, envelopeMetadata, {
      event_kind: "session_started",
      schema_version: RUNTIME_EVENT_SCHEMA_VERSION,
      occurred_at: session.started_at,
      ...shared,
      metadata: eventMetadata,
    }),
  ];
  if (outcome) {
    envelopes.push(
      envelopeFor(artifact, envelopeMetadata, {
        event_kind: "session_feedback",
        schema_version: RUNTIME_EVENT_SCHEMA_VERSION,
        occurred_at: outcome.occurred_at,
        ...shared,
        status: outcome.status,
        score: outcome.score,
        ...(outcome.comment === undefined ? {} : { comment: outcome.comment }),
        metadata: { ...eventMetadata, outcome },
      }),
    );
  }
  return envelopes;
}

type EventBody = Omit<CompleteRuntimeEventEnvelope["event"], "event_id">;

/** Ids come from the content: the event's from its body, the envelope's from everything else it carries. */
function envelopeFor(
  artifact: OperatorSessionArtifact,
  metadata: Record<string, unknown>,
  body: EventBody,
): CompleteRuntimeEventEnvelope {
  const event = {
    ...body,
    event_id: derivedUuid("openclaw-import event", canonicalJson(body)),
  } as CompleteRuntimeEventEnvelope["event"];
  const header = {
    contract_name: RUNTIME_EVENT_CONTRACT_NAME,
    contract_version: RUNTIME_EVENT_CONTRACT_VERSION,
    recorded_at: artifact.recorded_at,
    source: artifact.source,
    metadata,
  } as const;
  return {
    ...header,
    envelope_id: derivedUuid("openclaw-import envelope", canonicalJson({ ...header, event })),
    event,
  };
}
