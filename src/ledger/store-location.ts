import { resolve } from "node:path";
import { ironclawHome } from "../core/index.js";
import type { CommonStoreOptions, EventStore } from "./event-store.js";
import type { PostgresSynchronousCommit } from "./postgres-schema.js";
import { PostgresEventStore } from "./postgres-store.js";
import type { SqliteSynchronous } from "./sqlite-schema.js";
import { SqliteEventStore } from "./sqlite-store.js";

/** Where a ledger lives: a SQLite file (the embedded default) or a PostgreSQL database. */
export type StoreLocation =
  | { kind: "sqlite"; path: string }
  | { kind: "postgres"; url: string; schema?: string };

/**
 * `--db <file>` wins, then `--postgres <url>`, then IRONCLAW_LEDGER_URL (Postgres), then
 * IRONCLAW_HOME/ledger.db with IRONCLAW_HOME defaulting to ~/.ironclaw.
 */
export function locateStore(
  flags: { db?: string | undefined; postgres?: string | undefined },
  env: NodeJS.ProcessEnv,
  cwd: string,
): StoreLocation {
  if (flags.db !== undefined) return { kind: "sqlite", path: resolve(cwd, flags.db) };
  const url = flags.postgres ?? env.IRONCLAW_LEDGER_URL;
  if (url !== undefined && url !== "") return { kind: "postgres", url };
  const home = ironclawHome(env);
  return { kind: "sqlite", path: resolve(cwd, home, "ledger.db") };
}

export interface OpenStoreOptions extends CommonStoreOptions {
  /** SQLite's PRAGMA synchronous (default FULL). */
  synchronous?: SqliteSynchronous;
  /** PostgreSQL's synchronous_commit (default on). */
  synchronousCommit?: PostgresSynchronousCommit;
}

/** Opens the ledger at a location: both stores are opened the same way, with the options that apply to each. */
export async function openStore(
  location: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<EventStore> {
  const mustExist = options.mustExist ?? false;
  if (location.kind === "postgres")
    return PostgresEventStore.open({
      url: location.url,
      mustExist,
      ...(location.schema ? { schema: location.schema } : {}),
      ...(options.synchronousCommit ? { synchronousCommit: options.synchronousCommit } : {}),
    });
  return SqliteEventStore.open({
    path: location.path,
    mustExist,
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
  });
}
