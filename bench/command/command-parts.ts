// Command's parts on one home, joined as CommandService joins them, with seams for the benchmark: a warm
// cell per order and per gate, and a clock on the vault's calls and on each kind of cell call.
import { join } from "node:path";
import {
  CellGateRunner,
  CommandingOfficer,
  copyTreeIn,
  Integrator,
  runOwner,
  SqliteJobQueue,
  TheaterRegistry,
  Vault,
  Worker,
  type WorkerVault,
  workerVaultOf,
} from "../../src/command/index.js";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { WardenCommandCells } from "../../src/warden/index.js";
import { type BenchHost, CELL_UID, seedRepository } from "./host.js";
import { notesPlan } from "./order-script.js";
import { StepClock, WarmCells } from "./warm-cells.js";

export const USER = "bench-user";
export const THEATER = "demo";

export interface CommandParts {
  store: SqliteEventStore;
  queue: SqliteJobQueue;
  theaters: TheaterRegistry;
  repo: string;
  worker: Worker;
  integrator: Integrator;
  cells: WarmCells;
  clock: StepClock;
  /** A new run of `count` independent orders, planned and dispatched; their ids in the order the queue holds them. */
  runOf(count: number): Promise<{ runId: string; orderIds: string[] }>;
  close(): Promise<void>;
}

export async function openCommandParts(host: BenchHost, home: string, files: number): Promise<CommandParts> {
  const store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
  const queue = await SqliteJobQueue.open(join(home, "queue.db"));
  const theaters = new TheaterRegistry(join(home, "theaters"));
  await seedRepository(join(theaters.theaterDir(THEATER), "repo"), files);
  const { repo_path } = await theaters.add({ theaterId: THEATER, owner: USER });
  const clock = new StepClock();
  const commandCells = new WardenCommandCells({
    backend: host.backend,
    scratchDir: join(home, "command", "cells"),
    config: host.config,
    providers: host.providers,
    cellUidOf: () => CELL_UID,
    audit: () => {},
    logger: host.logger,
    budget: host.budget,
  });
  const cells = new WarmCells(commandCells, clock);
  const vault = new Vault({ theaters, store });
  const plain = workerVaultOf(vault);
  const timedVault: WorkerVault = {
    openWorktree: (job) => clock.time("worktreeOpen", () => plain.openWorktree(job)),
    commitAll: (orderId, message) => clock.time("commit", () => plain.commitAll(orderId, message)),
  };
  let plan: unknown;
  let runs = 0;
  const co = new CommandingOfficer({
    store,
    queue,
    planner: { plan: async () => plan },
    theaterWorktreePath: (theaterId, orderId) =>
      join(theaters.theaterDir(theaterId), "worktrees", `order_${orderId}`),
  });
  const worker = new Worker({
    store,
    queue,
    vault: timedVault,
    cells,
    workerId: "bench-worker",
    leaseMs: 60_000,
    ownerOf: (runId) => runOwner(store, runId),
    modelProvider: "local",
  });
  const integrator = new Integrator({
    store,
    theaters,
    gates: new CellGateRunner({ cells, copyTreeIn }),
    dependenciesIntegrated: () => true,
  });
  return {
    store,
    queue,
    theaters,
    repo: repo_path,
    worker,
    integrator,
    cells,
    clock,
    async runOf(count) {
      runs += 1;
      plan = notesPlan(`r${runs}`, count);
      const runId = await co.createRun({
        userId: USER,
        theaterId: THEATER,
        objective: `Write ${count} notes`,
      });
      const { order_ids } = await co.plan(runId);
      await co.dispatch(runId);
      return { runId, orderIds: order_ids };
    },
    async close() {
      await commandCells.releaseAll();
      await queue.close();
      await store.close();
    },
  };
}
