export { type EvolutionSignal, projectEvolutionSignals, type SignalKind } from "./evolution-signals.js";
export { importOpenclawFile, type OpenclawImportResult } from "./openclaw-import.js";
export {
  buildOperatorHandoff,
  HANDOFF_REPORT_KIND,
  type HandoffState,
  type OperatorHandoff,
} from "./operator-handoff.js";
export { buildPayloadReport, writeRuntimeSessionReport } from "./payload-report.js";
export {
  LATEST_HANDOFF_BUNDLE,
  LATEST_RUNTIME_SESSION_REPORT,
  reportsDir,
  type SessionReportPaths,
  sessionFileSegment,
  sessionReportPaths,
} from "./report-names.js";
export { resumeCommands, shellWord } from "./resume-commands.js";
export { renderRuntimeSessionMarkdown } from "./runtime-session-markdown.js";
export {
  buildRuntimeSessionReport,
  RUNTIME_SESSION_REPORT_KIND,
  type RuntimeSessionReport,
} from "./runtime-session-report.js";
export { adaptOperatorSession, IMPORT_METADATA_KEY } from "./session-adapter.js";
export {
  IMPORT_REPORT_KIND,
  type ImportedSession,
  type SessionReports,
  writeSessionReports,
} from "./session-reports.js";
