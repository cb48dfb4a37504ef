import type { LedgerEvent, LedgerEventInput, LedgerEventType } from "../contracts/index.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";

/** A stored event and the global position the ledger gave it (1, 2, 3, … in commit order). */
export type RecordedEvent = LedgerEvent & { position: number };

/**
 * The fields of a stored event that the run and order projections read: what a rebuild fetches. Leaving out
 * garrison_id and the unnamed keys (`extras`) saves a fifth of the cost of reading every event back.
 */
export type ProjectedEvent = Pick<
  RecordedEvent,
  "position" | "event_id" | "ts" | "type" | "theater_id" | "run_id" | "order_id" | "unit_id" | "payload"
>;

/** A run's or an order's events: every event that names that run_id or order_id. */
export interface StreamRef {
  kind: "run" | "order";
  id: string;
}

/**
 * A writer's optimistic-concurrency check: append only if the stream still holds exactly `version` events
 * (0 for a stream that does not exist yet). Checked inside the append transaction.
 */
export interface StreamExpectation extends StreamRef {
  version: number;
}

/** What every store's `open` takes besides where its ledger is. */
export interface CommonStoreOptions {
  /** Refuse to create a ledger that is not there (read-only commands): SQLite's file, PostgreSQL's schema. */
  mustExist?: boolean;
}

export interface AppendOptions {
  expect?: readonly StreamExpectation[];
}

export interface EventQuery {
  /** Only events after this global position (default 0: from the start). */
  after?: number;
  /** Only events up to and including this position; a subscription reads up to the head it observed. */
  through?: number;
  /** At most this many events (default 1000). */
  limit?: number;
  runId?: string;
  orderId?: string;
  types?: readonly LedgerEventType[];
}

/** Every snapshot as its stored canonical JSON, ordered by id: equal dumps mean byte-identical projections. */
export interface SnapshotDump {
  runs: Array<[runId: string, json: string]>;
  orders: Array<[orderId: string, json: string]>;
}

export interface RebuildReport {
  events: number;
  runs: number;
  orders: number;
  millis: number;
}

/**
 * The ledger: an append-only event store with run and order projections kept in the same transaction as the
 * events they derive from. SQLite (embedded) and PostgreSQL (scale-out) implement it and pass one shared
 * conformance suite (test/ledger).
 *
 * append and appendBatch take events in the input contract's type; they still check every rule of the seed-000
 * contract a type cannot say (payload fields, which ids an event type needs, path-safe ids), refuse illegal
 * transitions and conflicting event_ids, and are atomic: a batch is stored whole or not at all. Callers that
 * hold unknown input (an HTTP body, a file) parse it with parseEventInput first, which reports every bad field.
 */
export interface EventStore {
  readonly kind: "sqlite" | "postgres";
  append(input: LedgerEventInput, options?: AppendOptions): Promise<AppendResult>;
  appendBatch(inputs: readonly LedgerEventInput[], options?: AppendOptions): Promise<AppendResult[]>;
  read(query?: EventQuery): Promise<RecordedEvent[]>;
  /** The highest committed position; every position at or below it is committed or never will be. */
  head(): Promise<number>;
  streamVersion(stream: StreamRef): Promise<number>;
  getRun(runId: string): Promise<RunSnapshot | undefined>;
  getOrder(orderId: string): Promise<OrderSnapshot | undefined>;
  dumpSnapshots(): Promise<SnapshotDump>;
  /** Recomputes every snapshot from the events, replacing the stored ones, while appends wait. */
  rebuild(): Promise<RebuildReport>;
  /**
   * Resolves once the head may have moved past `after` (an append here, a notification from another writer)
   * or after `timeoutMs`, whichever is first; callers re-check the head. Never rejects.
   */
  waitForAppend(after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  close(): Promise<void>;
}
