import {
  type CompleteRuntimeEventEnvelope,
  HANDOFF_BUNDLE_REPORT_KIND,
  HANDOFF_BUNDLE_SCHEMA_VERSION,
  type OperatorSessionArtifact,
  type ProjectedFeedbackRecord,
} from "../../contracts/index.js";
import { buildOperatorHandoff, type OperatorHandoff } from "./operator-handoff.js";
import { reportJson, writeReportFile } from "./report-files.js";
import { type SessionReportPaths, sessionReportPaths } from "./report-names.js";
import { renderRuntimeSessionMarkdown } from "./runtime-session-markdown.js";
import { buildRuntimeSessionReport, type RuntimeSessionReport } from "./runtime-session-report.js";

export const IMPORT_REPORT_KIND = "openclaw_import";

/** One imported session's evidence, as stored: the artifact as received, its envelopes and their projections. */
export interface ImportedSession {
  /** The artifact exactly as decoded (keys the contract does not name included). */
  sourceArtifact: Record<string, unknown>;
  artifact: OperatorSessionArtifact;
  envelopes: readonly CompleteRuntimeEventEnvelope[];
  records: readonly ProjectedFeedbackRecord[];
}

export interface SessionReports {
  paths: SessionReportPaths;
  runtimeReport: RuntimeSessionReport;
  handoff: OperatorHandoff;
  bundle: Record<string, unknown>;
}

/**
 * Writes the seed's reports for one imported session under <state>/reports/: the import report, the runtime
 * session report (JSON and markdown), the handoff, the replayable handoff bundle, then the two latest_* aliases,
 * which are byte copies of the session's report and bundle. Every value comes from the evidence and the state
 * directory, never the clock, so importing the same artifact again rewrites the same bytes.
 */
export function writeSessionReports(stateDir: string, session: ImportedSession): SessionReports {
  const { artifact, envelopes, records } = session;
  const sessionId = artifact.session.session_id;
  const paths = sessionReportPaths(stateDir, sessionId);
  const runtimeReport = buildRuntimeSessionReport(envelopes, records);
  const handoff = buildOperatorHandoff({
    artifact,
    envelopes,
    records,
    stateDir,
    bundlePath: paths.handoffBundle,
  });
  const importReport = {
    report_kind: IMPORT_REPORT_KIND,
    session_id: sessionId,
    source_artifact: session.sourceArtifact,
    adapted_envelopes: envelopes,
    projected_feedback: records,
  };
  const bundle = {
    report_kind: HANDOFF_BUNDLE_REPORT_KIND,
    schema_version: HANDOFF_BUNDLE_SCHEMA_VERSION,
    exported_at: artifact.recorded_at,
    session_id: sessionId,
    task: artifact.session.task,
    source: artifact.source,
    source_artifact: session.sourceArtifact,
    handoff,
    runtime_session_report: runtimeReport,
    adapted_envelopes: envelopes,
    projected_feedback: records,
    artifact_paths: {
      import_report: paths.importReport,
      handoff: paths.handoff,
      handoff_bundle: paths.handoffBundle,
      runtime_session_report_json: paths.runtimeReportJson,
      runtime_session_report_md: paths.runtimeReportMd,
    },
    export_notes: [
      "Replay with: ironclaw evolution openclaw-import --file <this bundle> [--state <dir>].",
      "A replay stores these envelopes with their ids, skips those already stored, and restores the latest_* reports.",
    ],
  };
  const reportText = reportJson(runtimeReport);
  const bundleText = reportJson(bundle);
  writeReportFile(paths.importReport, reportJson(importReport));
  writeReportFile(paths.runtimeReportJson, reportText);
  writeReportFile(paths.runtimeReportMd, renderRuntimeSessionMarkdown(runtimeReport));
  writeReportFile(paths.handoff, reportJson(handoff));
  writeReportFile(paths.handoffBundle, bundleText);
  writeReportFile(paths.latestRuntimeReport, reportText);
  writeReportFile(paths.latestHandoffBundle, bundleText);
  return { paths, runtimeReport, handoff, bundle };
}
