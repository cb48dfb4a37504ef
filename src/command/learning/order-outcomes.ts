import type { LedgerEventType } from "../../contracts/index.js";
import type { EventStore, RecordedEvent } from "../../ledger/index.js";

/** The event types a learning tick reads: the order lifecycle, integration verdicts, and run feedback. */
export const OUTCOME_EVENT_TYPES: readonly LedgerEventType[] = [
  "ORDER_CREATED",
  "ORDER_CLAIMED",
  "ORDER_COMPLETED",
  "ORDER_FAILED",
  "ORDER_REISSUED",
  "ORDER_CANCELLED",
  "INTEGRATION_FAILED",
  "INTEGRATED",
  "RUN_UPDATED",
];

/** How one order went, as far as the ledger has told: who ran it, on what, and how it ended. */
export interface OrderTrack {
  runId: string | null;
  taskType: string;
  profile: string;
  model: string;
  lastClaimTs: string | null;
  /** null while the order is still in flight (or back in the queue after a reissue). */
  outcome: "completed" | "failed" | "cancelled" | null;
  /** Claim of the attempt that completed → ORDER_COMPLETED, in milliseconds. */
  latencyMs: number | null;
  retries: number;
  /** Its gates failed after it completed, and it was not integrated since: the work did not hold. */
  integrationFailed: boolean;
}

/** What a pass over the ledger gathered: every planned order, and each run's latest rating by a person. */
export interface OutcomeHistory {
  orders: Map<string, OrderTrack>;
  ratings: Map<string, "down" | "up">;
  events: number;
  afterPosition: number;
  throughPosition: number;
  first: RecordedEvent | undefined;
  last: RecordedEvent | undefined;
}

const PAGE = 5000;

/** Reads every outcome event up to the ledger's current head, page by page, and folds it into tracks. */
export async function readOutcomeHistory(store: EventStore): Promise<OutcomeHistory> {
  const through = await store.head();
  const history: OutcomeHistory = {
    orders: new Map(),
    ratings: new Map(),
    events: 0,
    afterPosition: 0,
    throughPosition: through,
    first: undefined,
    last: undefined,
  };
  let after = 0;
  for (;;) {
    const page = await store.read({ after, through, types: OUTCOME_EVENT_TYPES, limit: PAGE });
    for (const event of page) foldEvent(history, event);
    history.events += page.length;
    history.first ??= page[0];
    history.last = page.at(-1) ?? history.last;
    if (page.length < PAGE) return history;
    after = page.at(-1)?.position ?? through;
  }
}

/** Applies one event to the history; events of orders the CO did not plan (no readable profile) are ignored. */
export function foldEvent(history: OutcomeHistory, event: RecordedEvent): void {
  if (event.type === "RUN_UPDATED") {
    const rating = ratingOf(event.payload.feedback);
    if (rating && event.run_id !== null) history.ratings.set(event.run_id, rating);
    return;
  }
  if (event.order_id === null) return;
  if (event.type === "ORDER_CREATED") {
    const planned = plannedProfile(event.payload);
    if (planned) history.orders.set(event.order_id, { ...planned, runId: event.run_id, ...FRESH });
    return;
  }
  const track = history.orders.get(event.order_id);
  if (!track) return;
  switch (event.type) {
    case "ORDER_CLAIMED":
      track.lastClaimTs = event.ts;
      break;
    case "ORDER_COMPLETED":
      track.outcome = "completed";
      track.latencyMs =
        track.lastClaimTs === null ? null : Math.max(0, Date.parse(event.ts) - Date.parse(track.lastClaimTs));
      break;
    case "ORDER_FAILED":
      track.outcome = "failed";
      track.latencyMs = null;
      break;
    case "ORDER_CANCELLED":
      track.outcome = "cancelled";
      break;
    case "ORDER_REISSUED":
      track.retries += 1;
      track.outcome = null;
      track.integrationFailed = false;
      break;
    case "INTEGRATION_FAILED":
      track.integrationFailed = true;
      break;
    case "INTEGRATED":
      track.integrationFailed = false;
      break;
  }
}

const FRESH = { lastClaimTs: null, outcome: null, latencyMs: null, retries: 0, integrationFailed: false };

function plannedProfile(payload: Record<string, unknown>) {
  const profile = payload.profile as { name?: unknown; model?: unknown } | undefined;
  const { type } = payload;
  if (typeof type !== "string" || typeof profile?.name !== "string" || profile.name.length === 0)
    return undefined;
  return {
    taskType: type,
    profile: profile.name,
    model: typeof profile.model === "string" ? profile.model : "default",
  };
}

function ratingOf(feedback: unknown): "down" | "up" | undefined {
  if (typeof feedback !== "object" || feedback === null) return undefined;
  const { rating } = feedback as { rating?: unknown };
  return rating === "down" || rating === "up" ? rating : undefined;
}
