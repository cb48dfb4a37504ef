import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EvolutionEventRecord, IngestResult, ProjectedFeedbackRecord } from "../../contracts/index.js";
import { canonicalJson, withWriterLock } from "../../core/index.js";
import { completeDirectRecord, type DirectRecordInput } from "./direct-records.js";
import { createDurably, writeDurably } from "./durable-files.js";
import { planIngest, type Submitter } from "./ingest-plan.js";
import { buildInspectReport, type InspectReport } from "./inspect-report.js";
import { appendLines } from "./jsonl-file.js";
import { readPayload } from "./payload-intake.js";
import { STATE_FILES } from "./state-files.js";
import { StoreState } from "./store-state.js";
import { projectFeedback, type StoredEnvelope } from "./stored-records.js";

export interface IngestOptions {
  /** The warden user sending the payload; omitted for the host (CLI, import), which may write any session. */
  submitter?: Submitter;
  now?: () => Date;
}

/** What opening the state directory found and repaired. */
export interface Recovery {
  /** Bytes of a torn last line cut from each file (a writer died mid-write). */
  tornBytes: Record<"envelopes" | "projected" | "events", number>;
  /** Feedback envelopes that had been stored without their projection, projected now. */
  projected: number;
}

/**
 * The evolution state directory of seed 004: raw envelopes, projected feedback and direct records as append-only
 * JSONL. Every write holds the directory's writer lock and first reads what other writers appended and repairs
 * what a crashed one left, so the warden and the CLI may share a directory. An ingest writes the envelope lines
 * (the first carrying the whole payload's exact text), fsyncs, then their projections, fsyncs: a crash between
 * the two leaves raw evidence that the next writer projects, never a projection without its envelope.
 */
export class EvolutionStore {
  private readonly state: StoreState;
  private recovered: Recovery = { tornBytes: { envelopes: 0, projected: 0, events: 0 }, projected: 0 };

  private constructor(readonly stateDir: string) {
    this.state = new StoreState(stateDir);
  }

  /** Opens (creating if needed) a state directory and recovers what a crash left in it. */
  static open(stateDir: string): EvolutionStore {
    mkdirSync(join(stateDir, STATE_FILES.reports), { recursive: true });
    createDurably(stateDir, [STATE_FILES.envelopes, STATE_FILES.projected, STATE_FILES.events]);
    const store = new EvolutionStore(stateDir);
    store.recovered = store.locked(() => store.repair());
    return store;
  }

  /** What opening the state directory found and repaired. */
  get recovery(): Recovery {
    return this.recovered;
  }

  /**
   * Ingests one received payload: a single envelope, a list, or a batch. A payload with any problem is refused
   * whole (a ValidationError listing each field path and rule) and nothing is stored; a session another user
   * owns refuses it too (code "forbidden"). Envelopes whose envelope_id or event_id is already stored are
   * skipped and reported.
   */
  ingest(bytes: Buffer, options: IngestOptions = {}): IngestResult {
    const intake = readPayload(bytes, (options.now ?? (() => new Date()))());
    return this.locked(() => {
      this.repair();
      const plan = planIngest(intake, this.state, options.submitter);
      if (plan.fresh.length === 0) return plan.result;
      this.append("envelopes", plan.fresh);
      this.project(plan.fresh);
      return plan.result;
    });
  }

  /** Records a routed session or direct feedback in events.jsonl; the same record twice is stored once. */
  recordDirect(
    input: DirectRecordInput,
    now: Date = new Date(),
  ): { record: EvolutionEventRecord; stored: boolean } {
    const record = completeDirectRecord(input, now);
    return this.locked(() => {
      this.repair();
      if (this.state.eventRecordIds.has(record.record_id)) return { record, stored: false };
      this.append("events", [record]);
      return { record, stored: true };
    });
  }

  /** Every stored envelope, in the order received. */
  envelopes(): readonly StoredEnvelope[] {
    this.state.catchUp(false);
    return this.state.envelopes;
  }

  /** Every projected feedback record, in the order projected. */
  projected(): readonly ProjectedFeedbackRecord[] {
    this.state.catchUp(false);
    return this.state.projected;
  }

  /** Routed sessions and direct feedback (events.jsonl), in the order recorded. */
  events(): readonly EvolutionEventRecord[] {
    this.state.catchUp(false);
    return this.state.events;
  }

  /** Each raw envelope beside its projection, or "raw evidence only". */
  inspect(): InspectReport {
    return buildInspectReport(this.envelopes(), this.projected());
  }

  /** Writes the inspect report to reports/latest_inspect_report.json (canonical JSON) and returns its path. */
  writeInspectReport(report: InspectReport = this.inspect()): string {
    const path = join(this.stateDir, STATE_FILES.inspectReport);
    writeDurably(path, Buffer.from(`${canonicalJson(report)}\n`, "utf8"));
    return path;
  }

  /** The exact bytes of a payload that stored at least one envelope, by the sha256 of those bytes. */
  receivedPayload(sha256: string): Buffer | undefined {
    const line = this.envelopes().find(
      ({ received }) => received.payload_sha256 === sha256 && received.payload_text !== null,
    );
    return line?.received.payload_text == null ? undefined : Buffer.from(line.received.payload_text, "utf8");
  }

  /** The user a session belongs to (null: the host's), or undefined for a session never seen. */
  sessionOwner(sessionId: string): string | null | undefined {
    this.state.catchUp(false);
    return this.state.sessionOwners.get(sessionId);
  }

  private locked<T>(work: () => T): T {
    return withWriterLock(join(this.stateDir, STATE_FILES.lock), work, { what: "the evolution state" });
  }

  private file(key: "envelopes" | "projected" | "events"): string {
    return join(this.stateDir, STATE_FILES[key]);
  }

  /** Under the lock: read what others appended, cut torn lines, project what a crash left unprojected. */
  private repair(): Recovery {
    const tornBytes = this.state.catchUp(true);
    const missing = this.state.unprojected();
    this.project(missing);
    return { tornBytes, projected: missing.length };
  }

  private project(stored: readonly StoredEnvelope[]): void {
    this.append(
      "projected",
      stored.flatMap((line) => projectFeedback(line) ?? []),
    );
  }

  /** Under the lock: appends values as canonical JSON lines, fsynced, and keeps them as read. */
  private append(key: "envelopes" | "projected" | "events", values: readonly unknown[]): void {
    if (values.length === 0) return;
    const span = appendLines(
      this.file(key),
      values.map((value) => canonicalJson(value)),
    );
    this.state.wrote(key, span, values);
  }
}
