import type Database from "better-sqlite3";
import { statement } from "./statements.js";

/** One pre-compaction flush (seed 003 §7 step 4): when, which messages, the summary's hash, the files written. */
export interface CompactionRecord {
  id: string;
  createdAt: string;
  sessionId: string;
  firstMessage: string;
  lastMessage: string;
  messageCount: number;
  tokenCount: number;
  summaryHash: string;
  affectedDocs: string[];
}

/** The `compactions` table of the brain database. */
export class CompactionLog {
  constructor(private readonly db: Database.Database) {}

  add(record: CompactionRecord): void {
    statement<[string, string, string, string, string, number, number, string, string]>(
      this.db,
      "INSERT INTO compactions(id, created_at, session_id, first_message, last_message, message_count, " +
        "token_count, summary_hash, affected_docs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(
      record.id,
      record.createdAt,
      record.sessionId,
      record.firstMessage,
      record.lastMessage,
      record.messageCount,
      record.tokenCount,
      record.summaryHash,
      JSON.stringify(record.affectedDocs),
    );
  }

  /** Records oldest first, optionally for one session. */
  list(sessionId?: string): CompactionRecord[] {
    const rows = statement<[{ session: string | null }], StoredRecord>(
      this.db,
      "SELECT id, created_at AS createdAt, session_id AS sessionId, first_message AS firstMessage, " +
        "last_message AS lastMessage, message_count AS messageCount, token_count AS tokenCount, " +
        "summary_hash AS summaryHash, affected_docs AS affectedDocs FROM compactions " +
        "WHERE @session IS NULL OR session_id = @session ORDER BY id",
    ).all({ session: sessionId ?? null });
    return rows.map((r) => ({ ...r, affectedDocs: parseDocs(r.affectedDocs) }));
  }
}

/** A row as SQLite returns it: `affected_docs` is a JSON array of brain-relative paths. */
type StoredRecord = Omit<CompactionRecord, "affectedDocs"> & { affectedDocs: string };

function parseDocs(json: string): string[] {
  const docs: unknown = JSON.parse(json);
  if (!Array.isArray(docs) || !docs.every((d) => typeof d === "string")) {
    throw new TypeError(`compactions.affected_docs is not a JSON array of paths: ${json.slice(0, 80)}`);
  }
  return docs;
}
