import type { z } from "zod";
import type {
  ChatAsyncData,
  ChatRequest,
  ChatSyncData,
  LedgerEvent,
  OrderSnapshotData,
  PolicyState,
  PolicyView,
  RunSnapshotData,
  runSnapshotDataSchema,
  TheaterCreateData,
  TheaterCreateRequest,
} from "../../../src/contracts/command/index.js";
import type { Escalation } from "../../../src/contracts/warden/index.js";

// The command routes the warden serves under its own sign-in (src/warden/routes/command-routes.ts) and the
// ledger's read under /api/ledger, typed from seed 000's contracts: the user comes from the session, so no body
// carries user_id. Nothing here restates a shape the contracts define.

export type { Escalation, PolicyState, PolicyView };
export type Theater = Pick<TheaterCreateData, "theater_id" | "repo_path">;
export type RunSummary = RunSnapshotData;
export type OrderSnapshot = OrderSnapshotData;

/**
 * One order as GET /api/runs/{id} lists it: the run snapshot's status and what the plan and the order's own
 * snapshot add. Fields past order_id and status are optional: the list is the run's, the rest is the order's.
 */
export type RunOrder = RunSnapshotData["orders"][number] &
  Partial<Pick<OrderSnapshotData, "attempt" | "integration_state" | "aar_path">> & {
    key?: string | null;
    objective?: string | null;
    /** The orders this one waits on, as its plan names them (the command view draws them as edges). */
    depends_on?: string[];
    /** What the order's latest after-action report says it did. */
    aar_summary?: string | null;
  };

// Contract objects are loose (unknown keys pass), so Omit over their index signature would lose every field:
// the run's fields are taken from the schema's shape instead.
type RunShape = (typeof runSnapshotDataSchema)["shape"];
export type RunDetail = { [K in Exclude<keyof RunShape, "orders">]: z.output<RunShape[K]> } & {
  orders: RunOrder[];
};

/** Command's chat (seed 000 §3.1 POST /chat) as the warden serves it: the user comes from the session. */
export type CommandChatBody = Pick<ChatRequest, "theater_hint" | "message" | "mode">;
export type TheaterBody = Pick<TheaterCreateRequest, "theater_id"> & { repo_path?: string };
export type LedgerPage = { events: LedgerEvent[]; head: number; next_after: number };

/** Lists may come bare or wrapped ({ runs: [...] }); the controller accepts both. */
type ListOf<K extends string, T> = T[] | { [key in K]: T[] };

export interface CommandEndpoints {
  "GET /api/theaters": { response: ListOf<"theaters", Theater> };
  "POST /api/theaters": { body: TheaterBody; response: TheaterCreateData };
  "GET /api/runs": { response: ListOf<"runs", RunSummary> };
  /** Starts a run and drives it to its reply; async answers the run id at once, sync waits for the reply. */
  "POST /api/command/chat": { body: CommandChatBody; response: ChatAsyncData | ChatSyncData };
  "GET /api/runs/:id": { params: { id: string }; response: RunDetail };
  "POST /api/runs/:id/cancel": { params: { id: string }; response: Partial<RunSnapshotData> };
  "GET /api/orders/:id": { params: { id: string }; response: OrderSnapshot };
  /**
   * The ledger's own read (not the follow): a run's past events of some types; without run_id, an admin's read
   * of host-level events (patrol ticks, service health).
   */
  "GET /api/ledger/events": {
    query: { run_id?: string; type?: string; after?: number; limit?: number };
    response: LedgerPage;
  };
  "GET /api/escalations": { query: { open?: 1 }; response: ListOf<"escalations", Escalation> };
  "POST /api/escalations/:id/ack": { params: { id: string }; response: Partial<Escalation> };
  "GET /api/learn/policy": { query: { version?: number }; response: PolicyView };
  "GET /api/learn/policy/versions": { response: PolicyState };
  "POST /api/learn/policy/pin": { body: { version: number }; response: PolicyView };
  "POST /api/learn/policy/rollback": { body: { version: number }; response: PolicyView };
  "POST /api/learn/policy/unpin": { response: PolicyView };
}
