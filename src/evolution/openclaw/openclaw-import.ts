import {
  type CompleteRuntimeEventEnvelope,
  HANDOFF_BUNDLE_REPORT_KIND,
  type HandoffBundle,
  handoffBundleContract,
  type IngestResult,
  isJsonObject,
  type OperatorSessionArtifact,
  operatorSessionContract,
  type ProjectedFeedbackRecord,
  parseContract,
} from "../../contracts/index.js";
import { canonicalJson, InvalidInputError } from "../../core/index.js";
import { EvolutionStore } from "../store/index.js";
import { decodeJson } from "./json-input.js";
import { adaptOperatorSession } from "./session-adapter.js";
import { type SessionReports, writeSessionReports } from "./session-reports.js";

export interface OpenclawImportResult {
  /** What the file was: an operator-session artifact, or a handoff bundle replayed. */
  input: "operator_session" | "handoff_bundle";
  session_id: string;
  ingest: IngestResult;
  envelope_ids: string[];
  record_ids: string[];
  /** Records a replayed bundle lists that the store did not reproduce byte for byte (none for our own bundles). */
  unreproduced_record_ids: string[];
  reports: SessionReports["paths"];
}

/**
 * `ironclaw evolution openclaw-import --file F`: an operator-session artifact is adapted into envelopes and
 * ingested; a handoff bundle is replayed, its stored envelopes ingested as they are, so their ids and those of
 * their projections are kept and what is already stored is skipped. Either way the session's reports and the
 * latest_* aliases are (re)written. The whole input is checked before the state directory is opened: a bad
 * artifact or bundle is refused with every field path and rule, and nothing is written.
 */
export function importOpenclawFile(stateDir: string, bytes: Buffer): OpenclawImportResult {
  const value = decodeJson(bytes, operatorSessionContract.kind);
  if (isJsonObject(value) && value.report_kind === HANDOFF_BUNDLE_REPORT_KIND)
    return replayBundle(stateDir, value);
  const artifact = parseContract(operatorSessionContract, value);
  const envelopes = adaptOperatorSession(artifact);
  const store = EvolutionStore.open(stateDir);
  // The artifact's own time is the import's receive time, so the projections are the same on every run.
  const ingest = store.ingest(Buffer.from(canonicalJson(envelopes)), {
    now: () => new Date(artifact.recorded_at),
  });
  return finish(stateDir, store, "operator_session", {
    sourceArtifact: value as Record<string, unknown>,
    artifact,
    envelopes,
    ingest,
    expected: [],
  });
}

function replayBundle(stateDir: string, value: Record<string, unknown>): OpenclawImportResult {
  const bundle = parseContract(handoffBundleContract, value);
  checkBundleCoherence(bundle);
  const envelopes = value.adapted_envelopes as CompleteRuntimeEventEnvelope[];
  const store = EvolutionStore.open(stateDir);
  // Projections take the receive time as projected_at: the bundle's own keeps its records byte-identical.
  const at = bundle.projected_feedback[0]?.projected_at ?? bundle.exported_at;
  const ingest = store.ingest(Buffer.from(canonicalJson(envelopes)), { now: () => new Date(at) });
  return finish(stateDir, store, "handoff_bundle", {
    sourceArtifact: value.source_artifact as Record<string, unknown>,
    artifact: bundle.source_artifact,
    envelopes,
    ingest,
    expected: bundle.projected_feedback,
  });
}

function finish(
  stateDir: string,
  store: EvolutionStore,
  input: OpenclawImportResult["input"],
  imported: {
    sourceArtifact: Record<string, unknown>;
    artifact: OperatorSessionArtifact;
    envelopes: CompleteRuntimeEventEnvelope[];
    ingest: IngestResult;
    expected: readonly ProjectedFeedbackRecord[];
  },
): OpenclawImportResult {
  const ids = new Set(imported.envelopes.map((e) => e.envelope_id));
  const records = store.projected().filter((r) => ids.has(r.source_envelope_id));
  const stored = new Map(records.map((r) => [r.record_id, canonicalJson(r)]));
  const reports = writeSessionReports(stateDir, { ...imported, records });
  return {
    input,
    session_id: imported.artifact.session.session_id,
    ingest: imported.ingest,
    envelope_ids: imported.envelopes.map((e) => e.envelope_id),
    record_ids: records.map((r) => r.record_id),
    unreproduced_record_ids: imported.expected
      .filter((r) => stored.get(r.record_id) !== canonicalJson(r))
      .map((r) => r.record_id),
    reports: reports.paths,
  };
}

/** A bundle replays one session: every envelope and record in it must belong to the artifact's session. */
function checkBundleCoherence(bundle: HandoffBundle): void {
  const sessionId = bundle.source_artifact.session.session_id;
  const refuse = (path: string) => {
    throw new InvalidInputError(path, `must be the source artifact's session ${sessionId}`);
  };
  if (bundle.session_id !== sessionId) refuse("$.session_id");
  bundle.adapted_envelopes.forEach((envelope, i) => {
    if (envelope.event.session_id !== sessionId) refuse(`$.adapted_envelopes[${i}].event.session_id`);
    if (envelope.event.event_id === undefined)
      throw new InvalidInputError(
        `$.adapted_envelopes[${i}].event.event_id`,
        "is required: a replay keeps the stored ids",
      );
  });
  const envelopeIds = new Set(bundle.adapted_envelopes.map((e) => e.envelope_id));
  bundle.projected_feedback.forEach((record, i) => {
    if (record.session_id !== sessionId) refuse(`$.projected_feedback[${i}].session_id`);
    if (!envelopeIds.has(record.source_envelope_id))
      throw new InvalidInputError(
        `$.projected_feedback[${i}].source_envelope_id`,
        "must name one of the bundle's adapted envelopes",
      );
  });
}
