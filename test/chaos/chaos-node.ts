// One process of a chaos run, assembled as `ironclaw worker` and the warden assemble command (hostCommandOptions
// over IRONCLAW_HOME's ironclawd.toml and host.db, IRONCLAW_LEDGER_URL for PostgreSQL), with scripted order cells.
//   daemon: follows every OPEN run (plans, dispatches, integrates, synthesizes), its duty officer on its timer
//   worker: claims and works orders, one at a time, no duty officer
//   duty:   a second duty officer on its timer, nothing else
// It prints "<role> running" once open and runs until killed.

import { loadHostConfig } from "../../src/cells/index.js";
import { CommandService, listRuns, PostgresJobQueue } from "../../src/command/index.js";
import { createLogger, ironclawHome } from "../../src/core/index.js";
import { openStore } from "../../src/ledger/index.js";
// The warden's parts command needs, by file: its index would load the whole warden (HTTP, channels, UI routes),
// seconds of every restart on a busy host.
import { AuditStore } from "../../src/warden/audit-store.js";
import { ModelBudget } from "../../src/warden/budget/index.js";
import { hostCommandOptions } from "../../src/warden/host-command.js";
import { openHostDb } from "../../src/warden/host-db.js";
import { HostProviders } from "../../src/warden/host-providers.js";
import { UserStore } from "../../src/warden/user-store.js";
import { scriptedOrderBackend } from "./scripted-order-cells.js";

const role = process.argv[2];
if (role !== "daemon" && role !== "worker" && role !== "duty") throw new Error(`unknown role ${role}`);
const home = ironclawHome(process.env);
const config = loadHostConfig(home);
const logger = createLogger("command", { level: process.env.IRONCLAW_LOG ?? "warn" });
const db = openHostDb(home);
const options = hostCommandOptions({
  home,
  config,
  providers: new HostProviders(config, process.env),
  budget: new ModelBudget({ db, config }),
  logger,
  workers: role === "worker" ? 1 : 0,
  users: new UserStore(db),
  audit: new AuditStore(db),
  backend: scriptedOrderBackend(),
});
if (role === "worker") options.oversight = { ...options.oversight, patrolMs: 0 };
const url = process.env.IRONCLAW_LEDGER_URL;
if (url) {
  options.store = await openStore({ kind: "postgres", url });
  options.queue = await PostgresJobQueue.open({ url });
}
const service = await CommandService.open(options);
if (role === "daemon") {
  // A daemon that starts again picks up the runs it was following: nothing else would integrate their orders.
  for (const run of await listRuns(service.store, { limit: 100 })) {
    if (run.status !== "OPEN") continue;
    service.runs.follow(run.run_id).then(
      (done) => console.log(`run ${done.run_id} ${done.status}`),
      (error: Error) => console.log(`run ${run.run_id} not followed: ${error.message}`),
    );
  }
}
console.log(`${role} running`);
// Until killed: that is how every process of a chaos run ends.
setInterval(() => {}, 60_000);
