import { ironclawHome } from "../../core/index.js";
import { startWarden, withHostEnv } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand } from "../command-spec.js";
import { runDoctor } from "./doctor.js";
import { sentinelCommandLine } from "./sentinel.js";

export const serveCommand = defineCommand({
  name: "serve",
  summary: "start ironclawd: the API, UI, OpenAI-compatible endpoint and every user's cell",
  description: `Starts ironclawd, the IronClaw warden: the HTTP + WebSocket API, the UI at /ui, the OpenAI-compatible
endpoint at /v1, channels, and every user's agent in its own cell. State lives in IRONCLAW_HOME (default
~/.ironclaw): ironclawd.toml, host.db and users/. The first start writes ironclawd.toml with every setting
at its default (\`ironclaw setup\` writes it with your choices). Keys are read from IRONCLAW_HOME/ironclawd.env (0600)
beneath the process's environment. Prints a one-time admin login link. Stops every cell cleanly on SIGINT or SIGTERM.`,
  options: [
    {
      name: "host",
      type: "string",
      valueName: "address",
      description: "address to listen on (default [server] bind, 127.0.0.1)",
    },
    {
      name: "port",
      type: "number",
      integer: true,
      min: 0,
      max: 65535,
      valueName: "port",
      description: "TCP port (default [server] port, 7410; 0 picks a free one)",
    },
  ],
  async run({ options }, io) {
    const home = ironclawHome(io.env);
    const warden = await startWarden({
      home,
      // The keys `ironclaw setup` wrote (systemd's unit reads the same file); the process's own variables win.
      env: withHostEnv(home, io.env),
      ...(options.host ? { host: options.host } : {}),
      ...(options.port === undefined ? {} : { port: options.port }),
      sentinel: { command: sentinelCommandLine() },
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
      `Open the UI as ${warden.adminId} (a one-time link; \`ironclaw user login-link ${warden.adminId}\` makes another):`,
    );
    println(io.stdout, `  ${warden.loginUrl}`);
    println(io.stdout, "");
    println(io.stdout, `Add a user:   ironclaw user add <name>      (home: ${home})`);
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
});
