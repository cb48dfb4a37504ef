import { auditDataSchema, patrolStopDataSchema } from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

/**
 * The sentinel's HTTP surface (seed 000 §3.9): an audit of the duty officer now, and stopping the duty officer, which
 * is what the sentinel exists to notice. Both act on the whole host, so both are an admin's alone.
 */
export function sentinelRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  return [
    defineRoute({
      method: "POST",
      url: "/api/audit",
      summary:
        "Audit the duty officer now (seed 000 §3.9): its last PATROL_TICK and the overdue backlog's trend; CRITICAL escalation and a restart when it is dead or ineffective",
      tag: "command",
      access: "admin",
      response: auditDataSchema,
      async handler() {
        return access.service().oversight.sentinel.audit();
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/patrol/stop",
      summary:
        "Stop the duty officer's patrols (until the sentinel restarts it or the host restarts): a drill for the sentinel",
      tag: "command",
      access: "admin",
      response: patrolStopDataSchema,
      async handler() {
        const { dutyOfficer } = access.service().oversight;
        await dutyOfficer.stop();
        return { duty_officer: dutyOfficer.id, stopped: true };
      },
    }),
  ];
}
