import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CommandingOfficer,
  type CommandingOfficerOptions,
  type Planner,
  type PlanRequest,
  SqliteJobQueue,
} from "../../src/command/index.js";
import type { AarFile } from "../../src/contracts/index.js";
import { type EventStore, type OrderSnapshot, SqliteEventStore } from "../../src/ledger/index.js";

/** A planner that answers what the test set: a plan as JSON, or a model's text holding one. */
export class ScriptedPlanner implements Planner {
  readonly requests: PlanRequest[] = [];
  constructor(public reply: unknown) {}
  async plan(input: PlanRequest): Promise<unknown> {
    this.requests.push(input);
    return this.reply;
  }
}

export interface CoHarness {
  dir: string;
  store: EventStore;
  queue: SqliteJobQueue;
  planner: ScriptedPlanner;
  co: CommandingOfficer;
  worktree(theaterId: string, orderId: string): string;
  close(): Promise<void>;
}

/** A CO over a real SQLite ledger and job queue in a temp directory; AARs are read from real files in the worktrees. */
export async function openCo(options: Partial<CommandingOfficerOptions> = {}): Promise<CoHarness> {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-co-"));
  const store = await SqliteEventStore.open({ path: join(dir, "ledger.db") });
  const queue = await SqliteJobQueue.open(join(dir, "queue.db"));
  const planner = new ScriptedPlanner({ orders: [] });
  const worktree = (theaterId: string, orderId: string) =>
    join(dir, "theaters", theaterId, "worktrees", `order_${orderId}`);
  const readAar = async (order: OrderSnapshot): Promise<AarFile | undefined> => {
    if (order.aar_path === null) return undefined;
    return JSON.parse(readFileSync(join(worktree(order.theater_id, order.order_id), order.aar_path), "utf8"));
  };
  const co = new CommandingOfficer({
    store,
    queue,
    planner,
    readAar,
    theaterWorktreePath: worktree,
    ...options,
  });
  return {
    dir,
    store,
    queue,
    planner,
    co,
    worktree,
    async close() {
      await store.close();
      await queue.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Takes an enqueued order through what a worker and integration append: started, AAR and artifact written (the
 * AAR file really written into its worktree), completed, integration started, passed, integrated.
 */
export async function integrateOrder(h: CoHarness, orderId: string, summary: string): Promise<void> {
  const order = await h.store.getOrder(orderId);
  if (!order) throw new Error(`no order ${orderId}`);
  const path = h.worktree(order.theater_id, orderId);
  mkdirSync(join(path, "outputs"), { recursive: true });
  const aar = {
    order_id: orderId,
    status: "completed",
    completed_at: "2026-01-14T16:21:00Z",
    summary,
    artifacts: [{ path: "outputs/result.md", type: "text/markdown" }],
    model: { provider: "local", name: "test-model" },
  };
  writeFileSync(join(path, "aar.json"), JSON.stringify(aar));
  const ids = { garrison_id: "local", theater_id: order.theater_id, run_id: order.run_id, order_id: orderId };
  await h.store.appendBatch([
    { ...ids, type: "ORDER_STARTED", unit_id: `assault_${orderId}`, payload: { attempt: 1 } },
    { ...ids, type: "ARTIFACT_WRITTEN", payload: { path: "outputs/result.md", type: "text/markdown" } },
    { ...ids, type: "AAR_WRITTEN", payload: { path: "aar.json", summary } },
    { ...ids, type: "ORDER_COMPLETED", payload: {} },
    { ...ids, type: "INTEGRATION_STARTED", payload: {} },
    { ...ids, type: "INTEGRATION_PASSED", payload: {} },
    { ...ids, type: "INTEGRATED", payload: { commit_sha: "0123456789abcdef0123456789abcdef01234567" } },
  ]);
}

/** The types of a run's events, in ledger order. */
export async function eventTypes(store: EventStore, runId: string): Promise<string[]> {
  return (await store.read({ runId, limit: 10_000 })).map((e) => e.type);
}
