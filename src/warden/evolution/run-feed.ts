import type { Logger } from "../../core/index.js";
import { derivedUuid } from "../../evolution/index.js";
import type { EventStore, RecordedEvent } from "../../ledger/index.js";
import { LedgerFollower } from "../ledger-follower.js";
import { cutTask, type EvolutionFeed, type WardenEvent } from "./evolution-feed.js";

const RUN_EVENTS = ["RUN_CREATED", "RUN_COMPLETED", "RUN_FAILED", "RUN_CANCELLED"] as const;

/**
 * Command runs as evolution evidence, the session being the run: RUN_CREATED becomes session_started (the
 * objective as task), the run's end session_feedback. RUN_COMPLETED is success (1); RUN_CANCELLED is cancelled
 * (0); RUN_FAILED is partial, scored by the share of its orders that were merged, when some were, and failure (0)
 * when none was. Like the order certifier it follows the ledger on its own from the start, so runs that ended
 * while no warden was up are recorded when one starts; event ids derive from the run's, so each is kept once.
 */
export class RunFeed {
  private readonly follower: LedgerFollower;

  constructor(
    private readonly options: {
      store: EventStore;
      feed: EvolutionFeed;
      logger: Logger;
      /** Longest wait before looking at the ledger again for runs another process wrote (default 2 s). */
      pollIntervalMs?: number;
    },
  ) {
    this.follower = new LedgerFollower({
      store: options.store,
      types: [...RUN_EVENTS],
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      logger: options.logger,
      handle: (event) => this.recordOnce(event),
      failed: (event, error) => [
        { run: event.run_id, type: event.type, reason: error.message },
        "a command run could not be recorded for evolution",
      ],
      lost: "command runs are no longer recorded for evolution",
    });
  }

  start(): void {
    this.follower.start();
  }

  /** Stops following; the run being recorded, if any, is finished first. */
  close(): Promise<void> {
    return this.follower.close();
  }

  private async recordOnce(event: RecordedEvent): Promise<void> {
    const runId = event.run_id;
    if (runId === null) return;
    const [created] =
      event.type === "RUN_CREATED"
        ? [event]
        : await this.options.store.read({ runId, types: ["RUN_CREATED"], limit: 1 });
    if (!created) return;
    const owner = typeof created.payload.user_id === "string" ? created.payload.user_id : undefined;
    const objective = typeof created.payload.objective === "string" ? created.payload.objective.trim() : "";
    const task = cutTask(objective || `command run ${runId}`);
    const metadata = {
      channel: "command",
      user_id: owner ?? null,
      run_id: runId,
      theater_id: created.theater_id,
    };
    const started: WardenEvent = {
      event_kind: "session_started",
      event_id: derivedUuid("ironclaw-run-started", runId),
      occurred_at: created.ts,
      session_id: runId,
      task,
      metadata,
    };
    const events: WardenEvent[] = [started];
    if (event.type !== "RUN_CREATED") {
      const orders = await this.ordersOf(runId);
      events.push({
        event_kind: "session_feedback",
        event_id: derivedUuid("ironclaw-run-outcome", runId, event.type),
        occurred_at: event.ts,
        session_id: runId,
        task,
        ...outcomeOf(event.type, orders),
        ...(typeof event.payload.summary === "string" && event.payload.summary.trim()
          ? { comment: event.payload.summary.trim() }
          : {}),
        steps: orders.map((o) => `order ${o.order_id} ${o.status}${o.merged ? " merged" : ""}`),
        metadata: { ...metadata, outcome: event.type },
      });
    }
    this.options.feed.record(events, owner === undefined ? undefined : { userId: owner, admin: false });
  }

  /** The run's orders with their final status and whether each was merged into the theater. */
  private async ordersOf(runId: string): Promise<RunOrder[]> {
    const run = await this.options.store.getRun(runId);
    return Promise.all(
      (run?.orders ?? []).map(async ({ order_id, status }) => ({
        order_id,
        status,
        merged: (await this.options.store.getOrder(order_id))?.integration_state === "INTEGRATED",
      })),
    );
  }
}

interface RunOrder {
  order_id: string;
  status: string;
  merged: boolean;
}

type RunOutcome = { status: "success" | "failure" | "partial" | "cancelled"; score: number };

function outcomeOf(type: string, orders: readonly RunOrder[]): RunOutcome {
  if (type === "RUN_COMPLETED") return { status: "success", score: 1 };
  if (type === "RUN_CANCELLED") return { status: "cancelled", score: 0 };
  const merged = orders.filter((order) => order.merged).length;
  if (merged === 0 || orders.length === 0) return { status: "failure", score: 0 };
  return { status: "partial", score: Math.round((merged / orders.length) * 1000) / 1000 };
}
