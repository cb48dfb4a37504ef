import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ironclawHome } from "../core/index.js";
import type { EventStore } from "./event-store.js";
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

export interface OpenStoreOptions {
  /** Refuse to create a SQLite file that is not there (read-only commands). */
  mustExist?: boolean;
  synchronous?: SqliteSynchronous;
}

export async function openStore(
  location: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<EventStore> {
  if (location.kind === "postgres")
    return PostgresEventStore.open({
      url: location.url,
      ...(location.schema ? { schema: location.schema } : {}),
    });
  if (!options.mustExist) mkdirSync(dirname(location.path), { recursive: true });
  return new SqliteEventStore({
    path: location.path,
    mustExist: options.mustExist ?? false,
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
  });
}
