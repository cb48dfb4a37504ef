import type { RunView } from "../../command/index.js";
import { listRuns } from "../../command/index.js";
import { type CliIo, println } from "../command.js";
import { openHostCommand } from "../command-host.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const RUN_ID = { name: "id", required: true, description: "the run's id" } as const;

const start = defineCommand({
  name: "start",
  summary: "give command an objective: a run planned into orders by the host's model and queued for workers",
  description: `Creates a run in the theater, plans it with the host's planning model ([command] model in
ironclawd.toml) and queues the orders that can start. Workers (the warden's, or ironclaw worker) carry them out.
With --wait this process follows the run to its end: it integrates each completed order and prints the reply.
With IRONCLAW_LEDGER_URL set, the run lives in that PostgreSQL ledger and its orders in its queue, for
ironclaw worker --postgres processes on any host.`,
  positionals: [{ name: "objective", required: true, description: "what the run is for, in words" }],
  options: [
    {
      name: "theater",
      type: "string",
      required: true,
      valueName: "id",
      description: "the theater to work in",
    },
    {
      name: "user",
      type: "string",
      valueName: "name",
      description: "whose run it is (default: the theater's owner)",
    },
    { name: "wait", type: "boolean", description: "follow the run to its reply (integrating here)" },
    jsonOption("the run"),
  ],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io, { cells: options.wait });
    try {
      const theater = await service.theaters.require(options.theater);
      const runId = await service.co.createRun({
        userId: options.user ?? theater.owner,
        theaterId: theater.theater_id,
        objective: args.objective,
      });
      if (!options.wait) {
        await service.co.plan(runId).catch(async (error: Error) => {
          // As the warden's chat does: a run that cannot be planned ends cancelled with why, not open forever.
          await service.co.cancel(runId, `planning failed: ${error.message}`.slice(0, 1000));
          throw error;
        });
        await service.co.dispatch(runId);
        printRun(io, await service.co.runStatus(runId), options.json);
        return 0;
      }
      const done = await service.runs.follow(runId);
      if (options.json) println(io.stdout, JSON.stringify(done));
      else println(io.stdout, `run ${runId} ${done.status}\n\n${done.reply}`);
      return done.status === "COMPLETE" ? 0 : 1;
    } finally {
      await close();
    }
  },
});

const show = defineCommand({
  name: "show",
  summary: "a run's status, orders and reply",
  positionals: [RUN_ID],
  options: [jsonOption("the run")],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      printRun(io, await service.co.runStatus(args.id), options.json);
      return 0;
    } finally {
      await close();
    }
  },
});

const list = defineCommand({
  name: "list",
  summary: "runs, newest first",
  options: [
    { name: "user", type: "string", valueName: "name", description: "only this user's runs" },
    { name: "limit", type: "number", integer: true, min: 1, default: 50, description: "at most this many" },
    jsonOption("the runs"),
  ],
  async run({ options }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const runs = await listRuns(service.store, {
        limit: options.limit,
        ...(options.user ? { userId: options.user } : {}),
      });
      if (options.json) println(io.stdout, JSON.stringify(runs));
      else if (runs.length === 0) println(io.stdout, "no runs");
      else
        for (const r of runs)
          println(
            io.stdout,
            `${r.run_id}  ${r.status.padEnd(9)} ${r.theater_id.padEnd(16)} ${r.objective ?? ""}`,
          );
      return 0;
    } finally {
      await close();
    }
  },
});

const cancel = defineCommand({
  name: "cancel",
  summary: "cancel an open run and its orders that are not over",
  positionals: [RUN_ID],
  options: [
    { name: "reason", type: "string", default: "cancelled from the command line", description: "why" },
  ],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const { cancelled } = await service.co.cancel(args.id, options.reason);
      println(io.stdout, `run ${args.id} CANCELLED (${cancelled.length} orders cancelled)`);
      return 0;
    } finally {
      await close();
    }
  },
});

export const runCommand = defineGroup({
  name: "run",
  summary: 'command\'s runs: ironclaw run --theater <id> "<objective>", run show|list|cancel',
  subcommands: [start, show, list, cancel],
  fallback: "start",
});

const showOrder = defineCommand({
  name: "show",
  summary: "an order's status, attempt, worktree, AAR and artifacts, and its plan",
  positionals: [{ name: "id", required: true, description: "the order's id" }],
  options: [jsonOption("the order")],
  async run({ options, args }, io) {
    const { service, close } = await openHostCommand(io);
    try {
      const order = await service.co.orderStatus(args.id);
      if (options.json) println(io.stdout, JSON.stringify(order));
      else {
        println(
          io.stdout,
          `order ${order.order_id}  ${order.status}  attempt ${order.attempt}  run ${order.run_id}`,
        );
        if (order.plan) println(io.stdout, `  ${order.plan.key}: ${order.plan.objective}`);
        if (order.worktree_path)
          println(io.stdout, `  worktree ${order.worktree_path} (${order.worktree_state})`);
        if (order.integration_state)
          println(io.stdout, `  integration ${order.integration_state} ${order.commit_sha ?? ""}`);
      }
      return 0;
    } finally {
      await close();
    }
  },
});

export const orderCommand = defineGroup({
  name: "order",
  summary: "command's orders: order show <id>",
  subcommands: [showOrder],
});

function printRun(io: CliIo, run: RunView, json: boolean): void {
  if (json) {
    println(io.stdout, JSON.stringify(run));
    return;
  }
  println(io.stdout, `run ${run.run_id}  ${run.status}  theater ${run.theater_id}`);
  if (run.objective) println(io.stdout, `  objective: ${run.objective}`);
  for (const o of run.orders)
    println(io.stdout, `  ${o.order_id}  ${o.status.padEnd(9)} ${o.key ?? ""} ${o.objective ?? ""}`);
  if (run.summary) println(io.stdout, `\n${run.summary}`);
}
