export { AppendSignal } from "./append-signal.js";
export {
  CorruptRowError,
  EventIdConflictError,
  IllegalTransitionError,
  StreamVersionConflictError,
  type TransitionSubject,
} from "./errors.js";
export { parseEventInput } from "./event-input.js";
export type {
  AppendOptions,
  CommonStoreOptions,
  EventQuery,
  EventStore,
  RebuildReport,
  RecordedEvent,
  SnapshotDump,
  StreamExpectation,
  StreamRef,
} from "./event-store.js";
export { MAX_JSON_DEPTH } from "./json-body.js";
export { DEFAULT_BODY_LIMIT, type LedgerRoutesOptions, ledgerRoutes } from "./ledger-routes.js";
export { createLedgerServer, type LedgerServerOptions } from "./ledger-server.js";
export { applyOrderEvent } from "./order-projection.js";
export {
  POSTGRES_SYNCHRONOUS_COMMIT,
  type PostgresSynchronousCommit,
} from "./postgres-schema.js";
export { PostgresEventStore, type PostgresStoreOptions } from "./postgres-store.js";
export { SnapshotSet } from "./projection.js";
export {
  isLoopbackAddress,
  isLoopbackHost,
  type LedgerAuthenticator,
  type LedgerAuthorizer,
} from "./request-guard.js";
export { applyRunEvent } from "./run-projection.js";
export {
  type AppendData,
  type AppendResult,
  appendDataSchema,
  INTEGRATION_STATES,
  type IntegrationState,
  type OrderSnapshot,
  orderSnapshotSchema,
  type RunSnapshot,
  runSnapshotSchema,
  WORKTREE_STATES,
  type WorktreeState,
} from "./snapshot.js";
export { SQLITE_SYNCHRONOUS, type SqliteSynchronous } from "./sqlite-schema.js";
export { SqliteEventStore, type SqliteStoreOptions } from "./sqlite-store.js";
export { locateStore, type OpenStoreOptions, openStore, type StoreLocation } from "./store-location.js";
export { type SubscribeOptions, subscribe } from "./subscription.js";
