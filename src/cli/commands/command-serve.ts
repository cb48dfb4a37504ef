import { ironclawHome } from "../../core/index.js";
import { startWarden } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand, defineGroup } from "../command-spec.js";
import { sentinelCommandLine } from "./sentinel.js";

const serve = defineCommand({
  name: "serve",
  summary: "serve command's HTTP API alone (no UI), for a headless host",
  description: `Starts the warden without its web UI: command's routes (/api/theaters, /api/runs, /api/orders,
/api/worktrees, /api/integrate, /api/jobs, /api/command/chat) and the ledger at /api/ledger, under the users of
$IRONCLAW_HOME/host.db (ironclaw user add). The API document is at /api/openapi.json.`,
  options: [
    {
      name: "host",
      type: "string",
      valueName: "address",
      description: "address to listen on (default [server] bind)",
    },
    {
      name: "port",
      type: "number",
      integer: true,
      min: 0,
      max: 65535,
      valueName: "port",
      description: "TCP port (default [server] port; 0 picks a free one)",
    },
  ],
  async run({ options }, io) {
    const warden = await startWarden({
      home: ironclawHome(io.env),
      env: io.env,
      ...(options.host ? { host: options.host } : {}),
      ...(options.port === undefined ? {} : { port: options.port }),
      configure: (config) => ({ ...config, ui: { ...config.ui, enabled: false } }),
      sentinel: { command: sentinelCommandLine() },
    });
    println(io.stdout, `IronClaw command is serving at ${warden.url}  (API: ${warden.url}/api/openapi.json)`);
    await new Promise<void>((resolve) => {
      const stop = () => void warden.close().then(resolve, resolve);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return 0;
  },
});

export const commandCommand = defineGroup({
  name: "command",
  summary: "command on its own: command serve",
  subcommands: [serve],
});
