import { parseArgs } from "node:util";
import { normalizeEventType } from "../../contracts/index.js";
import { createLogger, NotFoundError } from "../../core/index.js";
import {
  createLedgerServer,
  type EventStore,
  isLoopbackHost,
  locateStore,
  openStore,
  type RecordedEvent,
  SQLITE_SYNCHRONOUS,
  type SqliteSynchronous,
  type StoreLocation,
  subscribe,
} from "../../ledger/index.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";
import { exists, openTokenCheck } from "../ledger-tokens.js";

const usage = `Usage: ironclaw ledger serve [--host H] [--port 7411] [--auth] [--synchronous FULL|NORMAL|OFF] [--body-limit BYTES]
       ironclaw ledger tail [--after N] [--follow] [--run ID] [--order ID] [--type T[,T…]] [--json]
       ironclaw ledger show run|order <id>
       ironclaw ledger rebuild

The command ledger: an append-only event store with derived run and order snapshots.
  serve     serve the ledger over HTTP on 127.0.0.1 by default: POST /events, /events/batch,
            GET /runs/{id}, /orders/{id}, /events (?follow=true for SSE), /health;
            bodies must be application/json; requests from web pages of another origin are refused.
            On any address but loopback (and on loopback with --auth) every request but /health needs
            Authorization: Bearer <token>, the API token of an admin user of the warden
            ($IRONCLAW_HOME/host.db, see ironclaw user add --admin);
            --synchronous sets SQLite's durability (FULL, the default, survives power loss), --body-limit the
            largest request body (default 1 MiB)
  tail      print events after a position; --follow keeps printing new ones until interrupted
  show      print a run's or an order's snapshot as JSON (exit 1 when it does not exist)
  rebuild   recompute every snapshot from the events

Where (every subcommand):
  --db <file>         a SQLite ledger file (default: $IRONCLAW_HOME/ledger.db, IRONCLAW_HOME=~/.ironclaw)
  --postgres <url>    a PostgreSQL ledger (default when IRONCLAW_LEDGER_URL is set)
  --schema <name>     the PostgreSQL schema holding the ledger (default: ledger)`;

const WHERE = {
  db: { type: "string" },
  postgres: { type: "string" },
  schema: { type: "string" },
} as const;

export const ledgerCommand: CliCommand = {
  name: "ledger",
  summary: "the command ledger: serve it over HTTP, tail events, show snapshots, rebuild projections",
  usage,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case "serve":
        return serve(rest, io);
      case "tail":
        return tail(rest, io);
      case "show":
        return show(rest, io);
      case "rebuild":
        return rebuild(rest, io);
      case undefined:
        throw new UsageError("missing subcommand: serve, tail, show or rebuild");
      default:
        throw new UsageError(`unknown subcommand '${sub}'`);
    }
  },
};

/** parseArgs, with its complaints (unknown option, missing value) reported as usage errors. */
function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function location(values: { db?: unknown; postgres?: unknown; schema?: unknown }, io: CliIo): StoreLocation {
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  if (values.db !== undefined && values.postgres !== undefined)
    throw new UsageError("give either --db or --postgres, not both");
  const where = locateStore({ db: str(values.db), postgres: str(values.postgres) }, io.env, io.cwd);
  const schema = str(values.schema);
  return where.kind === "postgres" && schema !== undefined ? { ...where, schema } : where;
}

function describeLocation(where: StoreLocation): string {
  return where.kind === "sqlite" ? `sqlite ${where.path}` : `postgres ${new URL(where.url).host}`;
}

/** Opens an existing ledger for reading; a missing SQLite file is an error rather than a new empty ledger. */
async function openExisting(where: StoreLocation): Promise<EventStore> {
  if (where.kind === "sqlite" && !exists(where.path)) throw new NotFoundError("ledger database", where.path);
  return openStore(where, { mustExist: true });
}

/** Resolves on the first SIGINT or SIGTERM and aborts the returned signal. */
function untilInterrupted(): { signal: AbortSignal; interrupted: Promise<void> } {
  const controller = new AbortController();
  const interrupted = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      controller.abort();
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return { signal: controller.signal, interrupted };
}

async function serve(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...WHERE,
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "7411" },
        synchronous: { type: "string" },
        "body-limit": { type: "string" },
        auth: { type: "boolean" },
      },
    }),
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port must be 0-65535");
  const synchronous = values.synchronous?.toUpperCase();
  if (synchronous !== undefined && !SQLITE_SYNCHRONOUS.includes(synchronous as SqliteSynchronous))
    throw new UsageError(`--synchronous must be one of ${SQLITE_SYNCHRONOUS.join(", ")}`);
  const bodyLimit = values["body-limit"] === undefined ? undefined : Number(values["body-limit"]);
  if (bodyLimit !== undefined && !(Number.isInteger(bodyLimit) && bodyLimit > 0))
    throw new UsageError("--body-limit must be a positive number of bytes");

  const where = location(values, io);
  const tokens =
    values.auth || !isLoopbackHost(values.host)
      ? openTokenCheck(
          io,
          values.auth ? "--auth" : `serving the ledger on ${values.host}, not a loopback address,`,
        )
      : undefined;
  const store = await openStore(
    where,
    synchronous ? { synchronous: synchronous as SqliteSynchronous } : {},
  ).catch((error: unknown) => {
    tokens?.close();
    throw error;
  });
  const { interrupted } = untilInterrupted();
  const server = await createLedgerServer({
    store,
    logger: createLogger("ledger"),
    ...(bodyLimit === undefined ? {} : { bodyLimit }),
    ...(tokens ? { authenticate: tokens.authenticate } : {}),
  });
  try {
    const address = await server.listen({ host: values.host, port });
    const auth = tokens ? "admin bearer tokens required" : "loopback only, no tokens";
    println(io.stdout, `ledger listening on ${address} (${describeLocation(where)}; ${auth})`);
    await interrupted;
  } finally {
    await server.close();
    await store.close();
    tokens?.close();
  }
  return 0;
}

async function tail(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parsing(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...WHERE,
        after: { type: "string", default: "0" },
        follow: { type: "boolean", short: "f" },
        run: { type: "string" },
        order: { type: "string" },
        type: { type: "string" },
        json: { type: "boolean" },
      },
    }),
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const after = Number(values.after);
  if (!Number.isInteger(after) || after < 0) throw new UsageError("--after must be a position (0 or more)");
  const types = values.type?.split(",").map((name) => {
    const type = normalizeEventType(name.trim());
    if (!type) throw new UsageError(`unknown event type '${name}'`);
    return type;
  });
  const store = await openExisting(location(values, io));
  const { signal } = untilInterrupted();
  try {
    const filter = {
      ...(values.run === undefined ? {} : { runId: values.run }),
      ...(values.order === undefined ? {} : { orderId: values.order }),
      ...(types === undefined ? {} : { types }),
    };
    for await (const event of subscribe(store, { after, filter, follow: values.follow === true, signal }))
      println(io.stdout, values.json ? JSON.stringify(event) : formatEvent(event));
  } finally {
    await store.close();
  }
  return 0;
}

/** One line per event: position, time, type, the ids it names, then its payload. */
function formatEvent(e: RecordedEvent): string {
  const ids = [
    e.run_id === null ? "" : ` run=${e.run_id}`,
    e.order_id === null ? "" : ` order=${e.order_id}`,
    e.unit_id === null ? "" : ` unit=${e.unit_id}`,
  ].join("");
  return `${String(e.position).padStart(6)}  ${e.ts}  ${e.type}${ids}  ${JSON.stringify(e.payload)}`;
}

async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parsing(() => parseArgs({ args, allowPositionals: true, options: WHERE }));
  const [kind, id, extra] = positionals;
  if (kind !== "run" && kind !== "order") throw new UsageError("show takes 'run' or 'order', then an id");
  if (id === undefined) throw new UsageError(`missing <id> of the ${kind}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const store = await openExisting(location(values, io));
  try {
    const snapshot = kind === "run" ? await store.getRun(id) : await store.getOrder(id);
    if (!snapshot) throw new NotFoundError(kind, id);
    println(io.stdout, JSON.stringify(snapshot, null, 2));
  } finally {
    await store.close();
  }
  return 0;
}

async function rebuild(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parsing(() => parseArgs({ args, allowPositionals: true, options: WHERE }));
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const store = await openExisting(location(values, io));
  try {
    const report = await store.rebuild();
    println(
      io.stdout,
      `rebuilt ${report.runs} runs and ${report.orders} orders from ${report.events} events in ${Math.round(report.millis)} ms`,
    );
  } finally {
    await store.close();
  }
  return 0;
}
