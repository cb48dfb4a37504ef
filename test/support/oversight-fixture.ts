import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Oversight,
  type OversightOptions,
  openOversight,
  SqliteJobQueue,
  TheaterRegistry,
  Vault,
} from "../../src/command/index.js";
import type { LedgerEventInput } from "../../src/contracts/index.js";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { ManualClock } from "./manual-clock.js";

/** The order every test plans: a 60 s budget and one retry, so attempts 1 and 2 are allowed. */
const PLAN = {
  key: "draft",
  type: "draft",
  objective: "Write the notes",
  inputs: {},
  depends_on: [],
  acceptance_commands: [],
  constraints: { budget_seconds: 60, max_retries: 1, tool_policy: { network: false, fs_allowlist: ["./"] } },
  profile: { name: "executor_default", model: "stand-in" },
};

/**
 * A theater for oversight tests: a real git repository with worktrees the vault makes, a real SQLite ledger and
 * job queue, and a clock the test moves. Orders are written to the ledger as the CO and a worker would.
 */
export class OversightFixture {
  readonly clock = new ManualClock(Date.now());
  readonly theaters: TheaterRegistry;
  readonly vault: Vault;
  private readonly opened: Array<{ store: SqliteEventStore; queue: SqliteJobQueue }> = [];

  private constructor(
    readonly home: string,
    readonly store: SqliteEventStore,
    readonly queue: SqliteJobQueue,
  ) {
    this.theaters = new TheaterRegistry(join(home, "theaters"));
    this.vault = new Vault({ theaters: this.theaters, store });
  }

  static async create(): Promise<OversightFixture> {
    const home = await mkdtemp(join(tmpdir(), "ironclaw-oversight-"));
    const store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
    const queue = await SqliteJobQueue.open(join(home, "queue.db"));
    const fixture = new OversightFixture(home, store, queue);
    await fixture.theaters.add({ theaterId: "demo", owner: "ada" });
    await store.append({
      ...fixture.ids(null),
      type: "RUN_CREATED",
      payload: { user_id: "ada", objective: "x" },
    });
    return fixture;
  }

  ids(orderId: string | null) {
    return { garrison_id: "local", theater_id: "demo", run_id: "run_1", order_id: orderId, unit_id: null };
  }

  /** Oversight over this theater's files; `second` opens its own ledger and queue handles, as another host would. */
  async oversight(options: OversightOptions = {}, second = false): Promise<Oversight> {
    let store = this.store;
    let queue = this.queue;
    if (second) {
      store = await SqliteEventStore.open({ path: join(this.home, "ledger.db") });
      queue = await SqliteJobQueue.open(join(this.home, "queue.db"));
      this.opened.push({ store, queue });
    }
    return openOversight(
      {
        home: this.home,
        store,
        queue,
        theaters: this.theaters,
        theaterWorktreePath: (theaterId, orderId) =>
          join(this.theaters.theaterDir(theaterId), "worktrees", `order_${orderId}`),
      },
      {
        clock: this.clock,
        thresholds: { stallAfterMs: 120_000, staleWorktreeMs: 600_000, integrationStaleMs: 3_600_000 },
        minFreeDiskBytes: 0,
        ...options,
      },
    );
  }

  /** An order planned, queued, given its worktree and started by a worker as attempt 1. */
  async startedOrder(orderId: string): Promise<string> {
    await this.store.appendBatch([
      { ...this.ids(orderId), type: "ORDER_CREATED", payload: PLAN },
      { ...this.ids(orderId), type: "ORDER_ENQUEUED", payload: { attempt: 1 } },
    ]);
    const { worktree_path } = await this.vault.createWorktree({ theaterId: "demo", runId: "run_1", orderId });
    await this.append(orderId, "ORDER_STARTED", { attempt: 1 });
    return worktree_path;
  }

  /** A started order whose worker wrote `files` (aar.json among them, unless left out) and completed it. */
  async completedOrder(orderId: string, files: Record<string, string>, commit = true): Promise<string> {
    const worktree = await this.startedOrder(orderId);
    for (const [name, text] of Object.entries(files)) await writeFile(join(worktree, name), text);
    if (commit) await this.vault.commitAll(orderId, `order ${orderId}: done`);
    if ("aar.json" in files) await this.append(orderId, "AAR_WRITTEN", { path: "aar.json" });
    await this.append(orderId, "ORDER_COMPLETED", {});
    return worktree;
  }

  /** An event at the test's clock, so that how long an order has run is what the test advanced, not the machine. */
  async append(orderId: string, type: LedgerEventInput["type"], payload: Record<string, unknown>) {
    const ts = new Date(this.clock.now()).toISOString();
    return this.store.append({ ...this.ids(orderId), ts, type, payload });
  }

  async types(orderId: string): Promise<string[]> {
    return (await this.store.read({ orderId })).map((e) => e.type);
  }

  async close(): Promise<void> {
    for (const { store, queue } of this.opened) {
      await queue.close();
      await store.close();
    }
    await this.queue.close();
    await this.store.close();
    await rm(this.home, { recursive: true, force: true });
  }
}

export function aarOf(orderId: string, artifacts: string[]): string {
  return JSON.stringify({
    order_id: orderId,
    status: "completed",
    completed_at: "2026-11-27T12:00:00Z",
    summary: "Wrote the notes",
    artifacts: artifacts.map((path) => ({ path, type: "text/plain" })),
    model: { provider: "local", name: "stand-in" },
  });
}
