import {
  type CompleteRuntimeEventEnvelope,
  HANDOFF_BUNDLE_REPORT_KIND,
  handoffBundleContract,
  isJsonObject,
  type ProjectedFeedbackRecord,
  parseContract,
  payloadForm,
  runtimeEventPayloadContract,
  toEnvelopes,
} from "../../contracts/index.js";
import { InvalidInputError, sha256Hex } from "../../core/index.js";
import { derivedUuid, projectFeedback } from "../store/index.js";
import { decodeJson } from "./json-input.js";
import { reportJson, writeReportFile } from "./report-files.js";
import { sessionReportPaths } from "./report-names.js";
import { renderRuntimeSessionMarkdown } from "./runtime-session-markdown.js";
import { buildRuntimeSessionReport, type RuntimeSessionReport } from "./runtime-session-report.js";

interface Evidence {
  envelopes: CompleteRuntimeEventEnvelope[];
  records: ProjectedFeedbackRecord[];
}

/**
 * `ironclaw evolution report --file …`: one session's evidence report from runtime event payloads (single
 * envelopes, lists, batches) or handoff bundles, without storing anything. The report never reads the clock:
 * what a payload omits is completed as an ingest of the same bytes would complete it (ids derived from the
 * payload's sha256 in draw order), and omitted times become the newest time the payload states (or the Unix
 * epoch when it states none), so the same files always give the same report. An envelope whose envelope_id or
 * event_id came earlier is skipped, as ingest skips it. When the files hold several sessions, `session` picks one.
 */
export function buildPayloadReport(files: readonly Buffer[], session?: string): RuntimeSessionReport {
  const seenEnvelopes = new Set<string>();
  const seenEvents = new Set<string>();
  const bySession = new Map<string, Evidence>();
  for (const bytes of files) {
    const evidence = readEvidence(bytes);
    const kept = evidence.envelopes.filter((e) => {
      if (seenEnvelopes.has(e.envelope_id) || seenEvents.has(e.event.event_id)) return false;
      seenEnvelopes.add(e.envelope_id);
      seenEvents.add(e.event.event_id);
      return true;
    });
    const keptIds = new Set(kept.map((e) => e.envelope_id));
    for (const envelope of kept) {
      const entry = bySession.get(envelope.event.session_id) ?? { envelopes: [], records: [] };
      entry.envelopes.push(envelope);
      bySession.set(envelope.event.session_id, entry);
    }
    for (const record of evidence.records)
      if (keptIds.has(record.source_envelope_id)) bySession.get(record.session_id)?.records.push(record);
  }
  const sessions = [...bySession.keys()];
  const chosen = session ?? (sessions.length === 1 ? sessions[0] : undefined);
  if (chosen === undefined)
    throw new InvalidInputError(
      "session",
      `the files hold ${sessions.length} sessions (${sessions.join(", ")}): name one`,
    );
  const evidence = bySession.get(chosen);
  if (!evidence) throw new InvalidInputError("session", `no event of session ${chosen} in the files`);
  return buildRuntimeSessionReport(evidence.envelopes, evidence.records);
}

function readEvidence(bytes: Buffer): Evidence {
  const value = decodeJson(bytes, runtimeEventPayloadContract.kind);
  if (isJsonObject(value) && value.report_kind === HANDOFF_BUNDLE_REPORT_KIND) {
    const bundle = parseContract(handoffBundleContract, value);
    return {
      envelopes: value.adapted_envelopes as CompleteRuntimeEventEnvelope[],
      records: bundle.projected_feedback,
    };
  }
  const payload = parseContract(runtimeEventPayloadContract, value);
  const sha256 = sha256Hex(bytes);
  const at = newestTime(value);
  let draws = 0;
  const envelopes = toEnvelopes(payload, {
    now: () => at,
    newId: () => derivedUuid("runtime-event-payload", sha256, String(draws++)),
  });
  const form = payloadForm(value);
  const records = envelopes.flatMap(
    (envelope, index) =>
      projectFeedback({
        envelope,
        raw: {},
        received: {
          payload_sha256: sha256,
          payload_text: null,
          payload_form: form,
          payload_index: index,
          received_at: at.toISOString(),
          submitted_by: null,
        },
      }) ?? [],
  );
  return { envelopes, records };
}

/** The newest recorded_at or occurred_at anywhere in a payload; the epoch when it has none. */
function newestTime(value: unknown): Date {
  let newest = 0;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isJsonObject(node))
      for (const [key, child] of Object.entries(node)) {
        if ((key === "recorded_at" || key === "occurred_at") && typeof child === "string")
          newest = Math.max(newest, Date.parse(child) || 0);
        else if (key === "event" || key === "events") visit(child);
      }
  };
  visit(value);
  return new Date(newest);
}

/**
 * `report --write-report`: the report under <state>/reports/ as runtime_session_report_<session>.json (and the
 * latest_runtime_session_report.json alias) or .md. Returns the paths written, the session's file first.
 */
export function writeRuntimeSessionReport(
  stateDir: string,
  report: RuntimeSessionReport,
  format: "json" | "md",
): string[] {
  const paths = sessionReportPaths(stateDir, report.session_id);
  if (format === "md") {
    writeReportFile(paths.runtimeReportMd, renderRuntimeSessionMarkdown(report));
    return [paths.runtimeReportMd];
  }
  const text = reportJson(report);
  writeReportFile(paths.runtimeReportJson, text);
  writeReportFile(paths.latestRuntimeReport, text);
  return [paths.runtimeReportJson, paths.latestRuntimeReport];
}
