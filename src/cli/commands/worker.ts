import { println } from "../command.js";
import { openHostCommand } from "../command-host.js";
import { defineCommand } from "../command-spec.js";

export const workerCommand = defineCommand({
  name: "worker",
  summary: "carry out command's orders: claim jobs from the queue and run each in a cell of its user",
  description: `Claims queued orders and runs each as an agent in a cell of the run's user (a scratch brain, no
network, the model through this host's providers under the user's spend caps), reporting to the ledger.
Embedded, it shares $IRONCLAW_HOME's ledger.db and queue.db with the warden; with --postgres (or
IRONCLAW_LEDGER_URL) any number of workers on any number of hosts share one ledger and queue. Stops on SIGINT or
SIGTERM once the orders it holds are done.`,
  options: [
    {
      name: "concurrency",
      type: "number",
      integer: true,
      min: 1,
      max: 64,
      default: 1,
      description: "orders worked on at once",
    },
    { name: "postgres", type: "string", valueName: "url", description: "a PostgreSQL ledger and queue" },
  ],
  async run({ options }, io) {
    const postgres = options.postgres ?? (io.env.IRONCLAW_LEDGER_URL || undefined);
    const { close } = await openHostCommand(io, { cells: true, workers: options.concurrency, postgres });
    println(
      io.stdout,
      `worker running (${options.concurrency} at once, ${postgres ? "postgres" : "embedded"}); Ctrl+C stops it`,
    );
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        println(io.stdout, `${signal}: finishing the orders held…`);
        resolve();
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
    });
    await close();
    return 0;
  },
});
