import { createConfiguredBackend, loadHostConfig, prepareWordTableDir } from "../cells/index.js";
import { CommandService, type CommandServiceOptions, PostgresJobQueue } from "../command/index.js";
import { createLogger, ironclawHome } from "../core/index.js";
import { openStore } from "../ledger/index.js";
import {
  AuditStore,
  HostProviders,
  hostCommandOptions,
  ModelBudget,
  openHostDb,
  UserStore,
  withHostEnv,
} from "../warden/index.js";
import type { CliIo } from "./command.js";

export interface HostCommandOptions {
  /** Cells for orders and gates, as the warden lends them: needed to run orders (workers) and integrate. */
  cells?: boolean;
  workers?: number;
  /** A PostgreSQL ledger and queue (scale-out) instead of the files under IRONCLAW_HOME. */
  postgres?: string | undefined;
}

/**
 * Command on this host, opened from the CLI the way the warden opens it (ironclawd.toml, the host's providers
 * and cell backend, host.db's users), on the files under IRONCLAW_HOME — or on PostgreSQL — shared with a
 * running warden. Without cells it only reads and writes the ledger and plans with the host's model.
 */
export async function openHostCommand(
  io: CliIo,
  options: HostCommandOptions = {},
): Promise<{ service: CommandService; close(): Promise<void> }> {
  const home = ironclawHome(io.env);
  const config = loadHostConfig(home);
  const logger = createLogger("command", { level: io.env.IRONCLAW_LOG ?? "warn" });
  const providers = new HostProviders(config, withHostEnv(home, io.env));
  const db = openHostDb(home);
  const budget = new ModelBudget({ db, config });
  const backend = options.cells
    ? (await createConfiguredBackend(config, { home, onWarning: (w) => logger.warn(w) })).backend
    : undefined;
  // bwrap cells bind the host's word table, converted once per home at the first cell's start: seconds of work
  // that hold this process's event loop, so it is done here, before a worker claims an order whose lease it
  // would stop renewing meanwhile.
  if (backend?.name === "bwrap") await prepareWordTableDir(home);
  const open: CommandServiceOptions = hostCommandOptions({
    home,
    config,
    providers,
    budget,
    logger,
    workers: options.workers ?? 0,
    users: new UserStore(db),
    audit: new AuditStore(db),
    ...(backend ? { backend } : {}),
  });
  // As `ironclaw ledger` does: IRONCLAW_LEDGER_URL names the PostgreSQL ledger (and queue) when no flag does.
  const postgres = options.postgres ?? (io.env.IRONCLAW_LEDGER_URL || undefined);
  if (postgres) {
    open.store = await openStore({ kind: "postgres", url: postgres });
    open.queue = await PostgresJobQueue.open({ url: postgres });
  }
  const service = await CommandService.open(open).catch((error: unknown) => {
    db.close();
    throw error;
  });
  return {
    service,
    async close() {
      await service.close();
      db.close();
    },
  };
}
