import { join } from "node:path";
import { systemClock } from "../../agent/index.js";
import { loadHostConfig } from "../../cells/index.js";
import { ActiveOrders, DEFAULT_THRESHOLDS, Sentinel } from "../../command/index.js";
import { createLogger, ironclawHome } from "../../core/index.js";
import { openStore } from "../../ledger/index.js";
import { commandOversightOptions, restartThroughWarden } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand } from "../command-spec.js";

/** How this process would start `ironclaw sentinel`: the same node, flags and entry script (built or from sources). */
export function sentinelCommandLine(): string[] {
  return [process.execPath, ...process.execArgv, process.argv[1] ?? "ironclaw", "sentinel"];
}

export const sentinelCommand = defineCommand({
  name: "sentinel",
  summary:
    "audit command's duty officer on a timer, apart from it: CRITICAL escalation and restart when it fails",
  description: `The sentinel (seed 000 §3.9): every [command] audit_seconds it reads the ledger's last PATROL_TICK
and the orders overdue for a reissue. A duty officer silent for two patrol periods is dead; one that keeps ticking
while overdue orders pile up, audit after audit, is ineffective. Either raises ESCALATION_RAISED CRITICAL once per
incident, and, when a warden started this sentinel, the warden restarts its duty officer (RECOVERY_STARTED, then
RECOVERY_COMPLETED at its first tick). \`ironclaw serve\` and \`ironclaw command serve\` start it themselves and
start another when it dies; run by hand it only escalates. Stops on SIGINT or SIGTERM, or when its warden exits.`,
  options: [
    {
      name: "duty-officer",
      type: "string",
      valueName: "id",
      description: "watch only the ticks of this duty officer (the duty_officer its PATROL_TICKs name)",
    },
    { name: "postgres", type: "string", valueName: "url", description: "a PostgreSQL ledger" },
  ],
  async run({ options }, io) {
    const home = ironclawHome(io.env);
    const oversight = commandOversightOptions(loadHostConfig(home));
    const auditMs = oversight.auditMs ?? 0;
    if (auditMs <= 0) {
      println(io.stdout, "[command] audit_seconds is 0: the sentinel is off");
      return 0;
    }
    const postgres = options.postgres ?? (io.env.IRONCLAW_LEDGER_URL || undefined);
    const store = await openStore(
      postgres ? { kind: "postgres", url: postgres } : { kind: "sqlite", path: join(home, "ledger.db") },
    );
    const restart = restartThroughWarden();
    const sentinel = new Sentinel({
      clock: systemClock,
      store,
      orders: new ActiveOrders(store),
      garrisonId: "local",
      patrolMs: oversight.patrolMs ?? 0,
      stallAfterMs: oversight.thresholds?.stallAfterMs ?? DEFAULT_THRESHOLDS.stallAfterMs,
      ...(options["duty-officer"] ? { dutyOfficerId: options["duty-officer"] } : {}),
      ...(restart ? { restartDutyOfficer: restart } : {}),
      logger: createLogger("sentinel", { level: io.env.IRONCLAW_LOG ?? "warn" }),
    });
    sentinel.start(auditMs);
    println(
      io.stdout,
      `sentinel (pid ${process.pid}) auditing ${options["duty-officer"] ?? "every duty officer"} every ${auditMs / 1000} s`,
    );
    await new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
      // The warden that started it is gone: so is the duty officer it watched, and a new warden starts its own.
      process.once("disconnect", () => resolve());
    });
    await sentinel.stop();
    await store.close();
    return 0;
  },
});
