import { hostname } from "node:os";
import { join } from "node:path";
import { type Logger, newId } from "../core/index.js";
import { type EventStore, openStore } from "../ledger/index.js";
import type { CommandCells } from "./cells/index.js";
import { copyTreeIn } from "./cells/index.js";
import type { Planner, Synthesizer } from "./co/co-services.js";
import { CommandingOfficer } from "./co/commanding-officer.js";
import { CellGateRunner } from "./integration/gate-runner.js";
import { Integrator } from "./integration/integrate.js";
import { readAar } from "./integration/worktree-files.js";
import { Learning } from "./learning/index.js";
import { type Oversight, type OversightOptions, openOversight } from "./oversight/index.js";
import type { JobQueue } from "./queue/job-queue.js";
import { SqliteJobQueue } from "./queue/sqlite-queue.js";
import { RunDriver } from "./run-driver.js";
import { runOwner } from "./run-owners.js";
import { TheaterRegistry } from "./vault/theaters.js";
import { Vault } from "./vault/worktrees.js";
import { Worker, workerVaultOf } from "./worker/index.js";

export interface CommandServiceOptions {
  /** IRONCLAW_HOME: the embedded ledger, queue and theaters live under it unless given. */
  home: string;
  /** The ledger; default the embedded SQLite ledger at <home>/ledger.db. */
  store?: EventStore;
  /** The worker queue; default the SQLite queue at <home>/queue.db. */
  queue?: JobQueue;
  /** Where theaters' repositories and worktrees live; default <home>/theaters. */
  theatersDir?: string;
  /** Turns a run's objective into orders (the warden's asks a model through its proxy). */
  planner: Planner;
  /** Writes a run's final reply; without one the CO composes a plain reply from the AARs. */
  synthesizer?: Synthesizer;
  /** Cells for orders and gates; without them no order runs here and nothing is gated (no workers, no integrator). */
  cells?: CommandCells;
  /** Orders worked on at once in this process (default 1; 0: none, `ironclaw worker` processes do it). */
  workers?: number;
  /** The provider command cells call, recorded in each AAR (default "openrouter"). */
  modelProvider?: string;
  /** The observer and the duty officer: thresholds, probes, and the duty officer's period (default: only on request). */
  oversight?: OversightOptions;
  /** How long a worker's claim holds before another worker may take the job (default 60 s, renewed while it runs). */
  leaseMs?: number;
  logger?: Logger;
}

/**
 * Command as one thing a host opens and closes: the ledger and the queue, shared by the CO, the vault and
 * integration over one theaters folder. It only assembles; each part does its own work. What it is given
 * becomes its own: close() closes every part, given or opened here, so a caller closes one thing.
 */
export class CommandService {
  private closing: Promise<void> | undefined;
  /** Runs carried from objective to reply (POST /chat). */
  readonly runs: RunDriver;
  /** The observer and the duty officer (seed 000 §3.6, §3.8), the latter on its timer when one is set; set by open(). */
  oversight!: Oversight;

  private constructor(
    readonly home: string,
    readonly store: EventStore,
    readonly queue: JobQueue,
    readonly theaters: TheaterRegistry,
    readonly vault: Vault,
    readonly co: CommandingOfficer,
    /** Undefined without cells: gates run in cells only. */
    readonly integrator: Integrator | undefined,
    /** This process's workers, claiming from the queue; undefined without cells or with workers: 0. */
    readonly workers: Worker | undefined,
    /** Outcomes → the routing policy the CO picks unnamed profiles by (seed 000 §3.10). */
    readonly learning: Learning,
    logger: Logger | undefined,
  ) {
    this.runs = new RunDriver(co, store, integrator, logger);
  }

  static async open(options: CommandServiceOptions): Promise<CommandService> {
    const store =
      options.store ?? (await openStore({ kind: "sqlite", path: join(options.home, "ledger.db") }));
    let queue: JobQueue;
    try {
      queue = options.queue ?? (await SqliteJobQueue.open(join(options.home, "queue.db")));
    } catch (error) {
      await store.close();
      throw error;
    }
    const theaters = new TheaterRegistry(options.theatersDir ?? join(options.home, "theaters"));
    const vault = new Vault({ theaters, store });
    // Where the vault puts it (vault/worktrees.ts): the job names the worktree before it exists.
    const theaterWorktreePath = (theaterId: string, orderId: string) =>
      join(theaters.theaterDir(theaterId), "worktrees", `order_${orderId}`);
    const learning = new Learning({ store });
    const co = new CommandingOfficer({
      store,
      queue,
      planner: options.planner,
      profileRouter: learning,
      ...(options.synthesizer ? { synthesizer: options.synthesizer } : {}),
      readAar: async (order) => {
        if (order.worktree_path === null) return undefined;
        try {
          return readAar(order.worktree_path, order.order_id);
        } catch {
          return undefined; // synthesis reports the order without its AAR
        }
      },
      theaterWorktreePath,
    });
    const integrator = options.cells
      ? new Integrator({
          store,
          theaters,
          gates: new CellGateRunner({ cells: options.cells, copyTreeIn }),
          dependenciesIntegrated: async (orderId) => {
            const order = await co.orderStatus(orderId);
            for (const dependency of order.plan?.depends_on ?? []) {
              if ((await store.getOrder(dependency))?.integration_state !== "INTEGRATED") return false;
            }
            return true;
          },
        })
      : undefined;
    const count = options.workers ?? 1;
    const workers =
      options.cells && count > 0
        ? new Worker({
            store,
            queue,
            vault: workerVaultOf(vault),
            cells: options.cells,
            workerId: `${hostname()}-${process.pid}-${newId()}`,
            leaseMs: options.leaseMs ?? 60_000,
            ownerOf: (runId) => runOwner(store, runId),
            modelProvider: options.modelProvider ?? "openrouter",
            ...(options.logger ? { logger: options.logger } : {}),
          })
        : undefined;
    workers?.start(count);
    const service = new CommandService(
      options.home,
      store,
      queue,
      theaters,
      vault,
      co,
      integrator,
      workers,
      learning,
      options.logger,
    );
    service.oversight = openOversight(
      {
        home: options.home,
        store,
        queue,
        theaters,
        theaterWorktreePath,
        ...(options.logger ? { logger: options.logger } : {}),
      },
      options.oversight,
    );
    return service;
  }

  /** Closes every part once; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.oversight.dutyOfficer.stop();
      await this.runs.close();
      await this.workers?.stop();
      // Gate cells still stopping after their answers, and the scratch checkouts they had.
      await this.integrator?.settled();
      await this.queue.close();
      await this.store.close();
    })();
    return this.closing;
  }
}
