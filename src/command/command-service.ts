import { join } from "node:path";
import { type EventStore, openStore } from "../ledger/index.js";
import type { JobQueue } from "./queue/job-queue.js";
import { SqliteJobQueue } from "./queue/sqlite-queue.js";
import { TheaterRegistry } from "./vault/theaters.js";
import { Vault } from "./vault/worktrees.js";

export interface CommandServiceOptions {
  /** IRONCLAW_HOME: the embedded ledger, queue and theaters live under it unless given. */
  home: string;
  /** The ledger; default the embedded SQLite ledger at <home>/ledger.db. */
  store?: EventStore;
  /** The worker queue; default the SQLite queue at <home>/queue.db. */
  queue?: JobQueue;
  /** Where theaters' repositories and worktrees live; default <home>/theaters. */
  theatersDir?: string;
}

/**
 * Command as one thing a host opens and closes: the ledger and the queue, shared by the vault and the parts that
 * join it over one theaters folder. It only assembles; each part does its own work. What it is given becomes
 * its own: close() closes every part, given or opened here, so a caller closes one thing.
 */
export class CommandService {
  private closing: Promise<void> | undefined;

  private constructor(
    readonly home: string,
    readonly store: EventStore,
    readonly queue: JobQueue,
    readonly theaters: TheaterRegistry,
    readonly vault: Vault,
  ) {}

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
    return new CommandService(options.home, store, queue, theaters, new Vault({ theaters, store }));
  }

  /** Closes every part once; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue.close();
      await this.store.close();
    })();
    return this.closing;
  }
}
