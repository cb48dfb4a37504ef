import { join } from "node:path";
import type { EvolutionEventRecord, ProjectedFeedbackRecord } from "../../contracts/index.js";
import { type AppendedSpan, readJsonlFrom, truncateFile } from "./jsonl-file.js";
import { STATE_FILES } from "./state-files.js";
import { projectionRecordId, type StoredEnvelope } from "./stored-records.js";

type FileKey = "envelopes" | "projected" | "events";

/**
 * What the three JSONL files hold, read into memory and kept current by reading what was appended since the last
 * read (by this process or another writer). Nothing here changes except by reading the files, so memory never
 * runs ahead of the disk.
 */
export class StoreState {
  readonly envelopes: StoredEnvelope[] = [];
  readonly projected: ProjectedFeedbackRecord[] = [];
  readonly events: EvolutionEventRecord[] = [];
  readonly envelopeIds = new Set<string>();
  readonly eventIds = new Set<string>();
  readonly recordIds = new Set<string>();
  readonly eventRecordIds = new Set<string>();
  /** Session → the user who first sent or routed it (null: the host). */
  readonly sessionOwners = new Map<string, string | null>();
  /** Feedback envelopes read whose projection has not been read yet, by record id, in the order received. */
  private readonly awaiting = new Map<string, StoredEnvelope>();
  private readonly offsets: Record<FileKey, number> = { envelopes: 0, projected: 0, events: 0 };

  constructor(private readonly stateDir: string) {}

  /**
   * Reads what was appended. With `repair` (only under the writer lock, when no one else can be mid-write) a torn
   * last line is cut away; without it, it is left for its writer or the next repair. Returns the bytes cut.
   */
  catchUp(repair: boolean): Record<FileKey, number> {
    const cut: Record<FileKey, number> = { envelopes: 0, projected: 0, events: 0 };
    for (const key of ["envelopes", "projected", "events"] as const) {
      const path = join(this.stateDir, STATE_FILES[key]);
      const chunk = readJsonlFrom(path, this.offsets[key]);
      this.offsets[key] = chunk.end;
      for (const value of chunk.values) this.absorb(key, value);
      if (repair && chunk.tornBytes > 0) {
        truncateFile(path, chunk.end);
        cut[key] = chunk.tornBytes;
      }
    }
    return cut;
  }

  /**
   * Takes lines this writer has just appended and fsynced, under the writer lock, as read: the values it
   * serialised are what a read would parse, so they are kept without reading the bytes back. Only when the lines
   * start exactly where the last read ended (nothing else was appended between) — otherwise the file is read.
   */
  wrote(key: FileKey, span: AppendedSpan, values: readonly unknown[]): void {
    if (span.start !== this.offsets[key]) {
      this.catchUp(false);
      return;
    }
    for (const value of values) this.absorb(key, value);
    this.offsets[key] = span.end;
  }

  /** Feedback envelopes whose projection is not on disk: an ingest was cut off between the two writes. */
  unprojected(): StoredEnvelope[] {
    return [...this.awaiting.values()];
  }

  private absorb(key: FileKey, value: unknown): void {
    if (key === "envelopes") {
      const stored = value as StoredEnvelope;
      this.envelopes.push(stored);
      this.envelopeIds.add(stored.envelope.envelope_id);
      this.eventIds.add(stored.envelope.event.event_id);
      this.claim(stored.envelope.event.session_id, stored.received.submitted_by);
      const { envelope } = stored;
      if (envelope.event.event_kind !== "session_feedback") return;
      const recordId = projectionRecordId(envelope.envelope_id, envelope.event.event_id);
      if (!this.recordIds.has(recordId)) this.awaiting.set(recordId, stored);
    } else if (key === "projected") {
      const record = value as ProjectedFeedbackRecord;
      this.projected.push(record);
      this.recordIds.add(record.record_id);
      this.awaiting.delete(record.record_id);
    } else {
      const record = value as EvolutionEventRecord;
      this.events.push(record);
      this.eventRecordIds.add(record.record_id);
      this.claim(record.session_id, record.user_id);
    }
  }

  private claim(sessionId: string, owner: string | null): void {
    if (!this.sessionOwners.has(sessionId)) this.sessionOwners.set(sessionId, owner);
  }
}
