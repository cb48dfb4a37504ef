import { join } from "node:path";
import type { CellBackend } from "../cells/index.js";
import type { CommandServiceOptions } from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import type { Logger } from "../core/index.js";
import type { AuditStore } from "./audit-store.js";
import type { ModelBudget } from "./budget/index.js";
import { WardenCommandCells } from "./command-cells.js";
import { commandOversightOptions } from "./command-oversight.js";
import { WardenPlanner } from "./command-planner.js";
import type { HostProviders } from "./host-providers.js";
import type { UserStore } from "./user-store.js";

export interface HostCommandParts {
  home: string;
  config: IronclawdConfig;
  providers: HostProviders;
  budget: ModelBudget;
  logger: Logger;
  workers: number;
  users: Pick<UserStore, "get">;
  audit: Pick<AuditStore, "record">;
  /** The host's cell backend, lent to command for orders and gates; without it command only plans and records. */
  backend?: CellBackend;
}

/**
 * What command takes from its host, whoever opens it (the warden, or the CLI beside a warden): planning with the
 * host's model under the user's caps, the provider orders' agents use, and the host's cells as the user's own
 * (uid, cgroup, budget), with their scratch brains under IRONCLAW_HOME/command/cells.
 */
export function hostCommandOptions(parts: HostCommandParts): CommandServiceOptions {
  const { home, config, providers, budget, logger, users, audit, backend } = parts;
  return {
    home,
    planner: new WardenPlanner(providers, config, budget),
    workers: parts.workers,
    oversight: commandOversightOptions(config, backend),
    leaseMs: config.command.lease_seconds * 1000,
    modelProvider: config.new_brains.provider ?? "openrouter",
    logger,
    ...(backend
      ? {
          cells: new WardenCommandCells({
            backend,
            scratchDir: join(home, "command", "cells"),
            config,
            providers,
            cellUidOf: (userId) => users.get(userId)?.cellUid,
            audit: (entry) => audit.record(entry),
            logger,
            budget,
          }),
        }
      : {}),
  };
}
