import { z } from "zod";
import {
  type PatrolRequest,
  pathSafeId,
  patrolDataSchema,
  patrolRequestSchema,
} from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

const theaterParams = z.object({ theater_id: pathSafeId });
// Seed 000 prints no body for either patrol: an empty request is one patrol with the configured thresholds.
const patrolBody = patrolRequestSchema.optional();

function patrolOptions(body: PatrolRequest | undefined) {
  return {
    ...(body?.stall_after_seconds !== undefined ? { stallAfterMs: body.stall_after_seconds * 1000 } : {}),
    ...(body?.dry_run !== undefined ? { dryRun: body.dry_run } : {}),
  };
}

/**
 * Oversight's HTTP surface: the observer's patrol of one theater (seed 000 §3.6), for its owner or an admin, and the
 * duty officer's patrol of everything (§3.8), which reissues orders of every user and so is an admin's alone.
 */
export function oversightRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  return [
    defineRoute({
      method: "POST",
      url: "/api/theaters/:theater_id/patrol",
      summary:
        "Patrol a theater now (seed 000 §3.6): stalled orders, stale or dirty worktrees, completed orders missing their AAR or artifacts",
      tag: "command",
      access: "user",
      params: theaterParams,
      body: patrolBody,
      response: patrolDataSchema,
      async handler({ auth, params, body }) {
        await access.theater(auth, params.theater_id);
        return access.service().oversight.observer.patrolTheater(params.theater_id, patrolOptions(body));
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/patrol",
      summary:
        "One duty officer tick now (seed 000 §3.8): probe services, patrol every theater, reissue stalled orders within their retry caps",
      tag: "command",
      access: "admin",
      body: patrolBody,
      response: patrolDataSchema,
      async handler({ body }) {
        return access.service().oversight.dutyOfficer.tick(patrolOptions(body));
      },
    }),
  ];
}
