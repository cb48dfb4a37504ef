import { parseArgs } from "node:util";
import { ironclawHome } from "../../core/index.js";
import { startWarden } from "../../warden/index.js";
import { type CliCommand, println, UsageError } from "../command.js";
import { runDoctor } from "./doctor.js";

const usage = `Usage: ironclaw serve [--host <address>] [--port <port>]

Starts ironclawd, the IronClaw warden: the HTTP + WebSocket API, the UI at /ui, the OpenAI-compatible
endpoint at /v1, channels, and every user's agent in its own cell. State lives in IRONCLAW_HOME (default
~/.ironclaw): ironclawd.toml, host.db and users/. The first start writes ironclawd.toml with every setting
at its default. Prints a one-time admin login link. Stops every cell cleanly on SIGINT or SIGTERM.

  --host   address to listen on (default [server] bind, 127.0.0.1)
  --port   TCP port (default [server] port, 7410; 0 picks a free one)`;

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "start ironclawd: the API, UI, OpenAI-compatible endpoint and every user's cell",
  usage,
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { host: { type: "string" }, port: { type: "string" } },
    });
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
      throw new UsageError(`--port must be a TCP port from 0 to 65535, got ${values.port}`);
    const home = ironclawHome(io.env);
    const warden = await startWarden({
      home,
      env: io.env,
      ...(values.host ? { host: values.host } : {}),
      ...(port === undefined ? {} : { port }),
    });
    // doctor as a preflight: what this host cannot do, in the log, without delaying the start.
    void runDoctor().then(
      (report) => {
        for (const check of report.checks.filter((c) => c.status !== "ok"))
          warden.context.logger.warn(
            { check: check.name, status: check.status, disables: check.disables },
            check.detail,
          );
      },
      (error: Error) => warden.context.logger.warn({ err: error }, "the doctor preflight failed"),
    );
    const { cellBackend } = warden.context;
    println(
      io.stdout,
      `IronClaw is running at ${warden.url}  (cells: ${cellBackend.name}${cellBackend.isolated ? "" : ", NOT isolated"})`,
    );
    println(io.stdout, "");
    println(
      io.stdout,
      "Open the UI as admin (a one-time link; `ironclaw user login-link admin` makes another):",
    );
    println(io.stdout, `  ${warden.loginUrl}`);
    println(io.stdout, "");
    println(io.stdout, `Add a user:   ironclaw user add alice      (home: ${home})`);
    println(io.stdout, `API docs:     ${warden.url}/api/openapi.json`);
    println(io.stdout, "Stop:         Ctrl+C");
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        println(io.stdout, `\n${signal}: stopping every cell…`);
        void warden.close().then(resolve, resolve);
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
    });
    return 0;
  },
};
