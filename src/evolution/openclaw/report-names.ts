import { join } from "node:path";
import { sha256Hex } from "../../core/index.js";

/** Characters a session id may keep in a file name as it is; anything else is encoded. */
const SAFE = /^[A-Za-z0-9._-]+$/;
/** Longest encoded segment kept readable; past it the segment becomes a digest so the name fits any file system. */
const MAX_SEGMENT = 160;

/**
 * The file-name segment for a session id. Session ids come from whoever wrote the artifact, so one such as
 * `../x` or `a/b` must never become a path: an id made only of [A-Za-z0-9._-] that does not start with `_` is
 * used as it is (a prefix always stands before it, so `.` and `..` name nothing special); any other id becomes
 * `_` + the hex of its UTF-8 bytes. Only encoded segments start with `_`, so two ids never share a segment; an
 * over-long one becomes `_sha256-<digest>`.
 */
export function sessionFileSegment(sessionId: string): string {
  const segment =
    SAFE.test(sessionId) && !sessionId.startsWith("_")
      ? sessionId
      : `_${Buffer.from(sessionId, "utf8").toString("hex")}`;
  return segment.length <= MAX_SEGMENT ? segment : `_sha256-${sha256Hex(sessionId)}`;
}

/** The seed's report files under `<state>/reports/` (seed 004 "Local Audit Surface"). */
export const LATEST_RUNTIME_SESSION_REPORT = "latest_runtime_session_report.json";
export const LATEST_HANDOFF_BUNDLE = "latest_openclaw_operator_handoff_bundle.json";

export interface SessionReportPaths {
  importReport: string;
  handoffBundle: string;
  handoff: string;
  runtimeReportJson: string;
  runtimeReportMd: string;
  latestRuntimeReport: string;
  latestHandoffBundle: string;
}

export function reportsDir(stateDir: string): string {
  return join(stateDir, "reports");
}

export function sessionReportPaths(stateDir: string, sessionId: string): SessionReportPaths {
  const dir = reportsDir(stateDir);
  const s = sessionFileSegment(sessionId);
  return {
    importReport: join(dir, `openclaw_import_${s}.json`),
    handoffBundle: join(dir, `openclaw_operator_handoff_bundle_${s}.json`),
    handoff: join(dir, `openclaw_operator_handoff_${s}.json`),
    runtimeReportJson: join(dir, `runtime_session_report_${s}.json`),
    runtimeReportMd: join(dir, `runtime_session_report_${s}.md`),
    latestRuntimeReport: join(dir, LATEST_RUNTIME_SESSION_REPORT),
    latestHandoffBundle: join(dir, LATEST_HANDOFF_BUNDLE),
  };
}
