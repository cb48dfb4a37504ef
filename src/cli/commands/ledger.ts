import { normalizeEventType } from "../../contracts/index.js";
import { createLogger, NotFoundError } from "../../core/index.js";
import {
  createLedgerServer,
  isLoopbackHost,
  openStore,
  type RecordedEvent,
  SQLITE_SYNCHRONOUS,
  type SqliteSynchronous,
  subscribe,
} from "../../ledger/index.js";
import { type CliIo, println, UsageError } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { describeLocation, location, openExisting, WHERE, type Where } from "../ledger-location.js";
import { openTokenCheck } from "../ledger-tokens.js";

const serveLedger = defineCommand({
  name: "serve",
  summary: "serve the ledger over HTTP on 127.0.0.1 by default",
  description: `Serves the ledger over HTTP on 127.0.0.1 by default: POST /events, /events/batch,
GET /runs/{id}, /orders/{id}, /events (?follow=true for SSE), /health;
bodies must be application/json; requests from web pages of another origin are refused.
On any address but loopback (and on loopback with --auth) every request but /health needs
Authorization: Bearer <token>, the API token of an admin user of the warden
($IRONCLAW_HOME/host.db, see ironclaw user add --admin).`,
  options: [
    ...WHERE,
    {
      name: "host",
      type: "string",
      valueName: "address",
      default: "127.0.0.1",
      description: "address to listen on",
    },
    {
      name: "port",
      type: "number",
      integer: true,
      min: 0,
      max: 65535,
      default: 7411,
      description: "TCP port",
    },
    { name: "auth", type: "boolean", description: "require admin bearer tokens on loopback too" },
    {
      name: "synchronous",
      type: "string",
      choices: SQLITE_SYNCHRONOUS,
      description: "SQLite's durability (FULL, the default, survives power loss)",
    },
    {
      name: "body-limit",
      type: "number",
      integer: true,
      min: 1,
      valueName: "bytes",
      description: "the largest request body (default 1 MiB)",
    },
  ],
  async run({ options }, io) {
    return serve(options, io);
  },
});

const tailLedger = defineCommand({
  name: "tail",
  summary: "print events after a position; --follow keeps printing new ones until interrupted",
  options: [
    ...WHERE,
    {
      name: "after",
      type: "number",
      integer: true,
      min: 0,
      default: 0,
      valueName: "position",
      description: "print events after this position",
    },
    {
      name: "follow",
      short: "f",
      type: "boolean",
      description: "keep printing new events until interrupted",
    },
    { name: "run", type: "string", valueName: "id", description: "only this run's events" },
    { name: "order", type: "string", valueName: "id", description: "only this order's events" },
    { name: "type", type: "list", valueName: "T", description: "only events of these types" },
    jsonOption("each event, one per line,"),
  ],
  async run({ options }, io) {
    return tail(options, io);
  },
});

/** `show run <id>` and `show order <id>`: the same command for either kind of snapshot. */
function showCommand(kind: "run" | "order") {
  return defineCommand({
    name: kind,
    summary: `print ${kind === "run" ? "a run" : "an order"}'s snapshot as JSON (exit 1 when it does not exist)`,
    positionals: [{ name: "id", required: true, description: `the ${kind}'s id` }],
    options: WHERE,
    async run({ options, args }, io) {
      return show(kind, args.id, options, io);
    },
  });
}

const rebuildLedger = defineCommand({
  name: "rebuild",
  summary: "recompute every snapshot from the events",
  options: WHERE,
  async run({ options }, io) {
    return rebuild(options, io);
  },
});

export const ledgerCommand = defineGroup({
  name: "ledger",
  summary: "the command ledger: serve it over HTTP, tail events, show snapshots, rebuild projections",
  description: "The command ledger: an append-only event store with derived run and order snapshots.",
  subcommands: [
    serveLedger,
    tailLedger,
    defineGroup({
      name: "show",
      summary: "print a run's or an order's snapshot as JSON (exit 1 when it does not exist)",
      subcommands: [showCommand("run"), showCommand("order")],
    }),
    rebuildLedger,
  ],
});

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

async function serve(
  values: Where & {
    host: string;
    port: number;
    auth: boolean;
    synchronous?: SqliteSynchronous | undefined;
    "body-limit"?: number | undefined;
  },
  io: CliIo,
): Promise<number> {
  const { port, synchronous } = values;
  const bodyLimit = values["body-limit"];
  const where = location(values, io);
  const tokens =
    values.auth || !isLoopbackHost(values.host)
      ? openTokenCheck(
          io,
          values.auth ? "--auth" : `serving the ledger on ${values.host}, not a loopback address,`,
        )
      : undefined;
  const store = await openStore(where, synchronous ? { synchronous } : {}).catch((error: unknown) => {
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

async function tail(
  values: Where & {
    after: number;
    follow: boolean;
    run?: string | undefined;
    order?: string | undefined;
    type: string[];
    json: boolean;
  },
  io: CliIo,
): Promise<number> {
  const { after } = values;
  const types =
    values.type.length === 0
      ? undefined
      : values.type.map((name) => {
          const type = normalizeEventType(name);
          if (!type) throw new UsageError(`--type: unknown event type '${name}'`, { showUsage: false });
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
    for await (const event of subscribe(store, { after, filter, follow: values.follow, signal }))
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

async function show(kind: "run" | "order", id: string, values: Where, io: CliIo): Promise<number> {
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

async function rebuild(values: Where, io: CliIo): Promise<number> {
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
