import { NotFoundError } from "../core/index.js";
import { type EventStore, locateStore, openStore, type StoreLocation } from "../ledger/index.js";
import { type CliIo, UsageError } from "./command.js";
import { exists } from "./ledger-tokens.js";

/** Where the ledger is: every subcommand takes these. */
export const WHERE = [
  {
    name: "db",
    type: "string",
    valueName: "file",
    description: "a SQLite ledger file (default: $IRONCLAW_HOME/ledger.db, IRONCLAW_HOME=~/.ironclaw)",
  },
  {
    name: "postgres",
    type: "string",
    valueName: "url",
    description: "a PostgreSQL ledger (default when IRONCLAW_LEDGER_URL is set)",
  },
  {
    name: "schema",
    type: "string",
    valueName: "name",
    description: "the PostgreSQL schema holding the ledger (default: ledger)",
  },
] as const;

export interface Where {
  db?: string | undefined;
  postgres?: string | undefined;
  schema?: string | undefined;
}

/** The ledger the flags name, or the default one of IRONCLAW_HOME / IRONCLAW_LEDGER_URL. */
export function location(values: Where, io: CliIo): StoreLocation {
  if (values.db !== undefined && values.postgres !== undefined)
    throw new UsageError("give either --db or --postgres, not both");
  const where = locateStore({ db: values.db, postgres: values.postgres }, io.env, io.cwd);
  return where.kind === "postgres" && values.schema !== undefined
    ? { ...where, schema: values.schema }
    : where;
}

export function describeLocation(where: StoreLocation): string {
  return where.kind === "sqlite" ? `sqlite ${where.path}` : `postgres ${new URL(where.url).host}`;
}

/** Opens an existing ledger for reading; a missing SQLite file is an error rather than a new empty ledger. */
export async function openExisting(where: StoreLocation): Promise<EventStore> {
  if (where.kind === "sqlite" && !exists(where.path)) throw new NotFoundError("ledger database", where.path);
  return openStore(where, { mustExist: true });
}
