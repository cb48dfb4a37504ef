import { join } from "node:path";
import { z } from "zod";
import { listRuns, theaterRecordSchema } from "../../command/index.js";
import {
  dispatchDataSchema,
  nonEmptyString,
  orderSnapshotDataSchema,
  pathSafeId,
  planDataSchema,
  runCreateDataSchema,
  runCreateRequestSchema,
  runSnapshotDataSchema,
  synthesizeDataSchema,
  theaterCreateDataSchema,
  theaterCreateRequestSchema,
} from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

const runParams = z.object({ run_id: pathSafeId });
const orderParams = z.object({ order_id: pathSafeId });
// The caller is signed in, so a body may leave user_id out; theater_id is read as theater_hint (the UI's name).
const runBody = runCreateRequestSchema
  .partial({ user_id: true })
  .extend({ theater_id: pathSafeId.optional() });
const theaterBody = theaterCreateRequestSchema.partial({ repo_path: true });
const cancelBody = z.object({ reason: nonEmptyString.optional() }).optional();
const runList = z.object({ runs: z.array(runSnapshotDataSchema) });

/**
 * Command's HTTP surface (seed 000 §3.2 runs, §3.4 theaters) under the warden's users: what a user
 * makes is theirs, another user's is answered as unknown, an admin reaches everything. Each route parses, checks
 * who is asking, calls the service and answers in the envelope.
 */
export function commandRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  const runOf = (runId: string) => access.service().co.runStatus(runId);
  const runRoute = (step: "plan" | "dispatch" | "synthesize", response: z.ZodType, summary: string) =>
    defineRoute({
      method: "POST",
      url: `/api/runs/:run_id/${step}`,
      summary,
      tag: "command",
      access: "user",
      params: runParams,
      response,
      async handler({ auth, params }) {
        await access.run(auth, params.run_id);
        return access.service().co[step](params.run_id);
      },
    });
  return [
    defineRoute({
      method: "POST",
      url: "/api/theaters",
      summary: "Create a theater: a git repository runs work in (seed 000 §3.4); only admins name its path",
      tag: "command",
      access: "user",
      body: theaterBody,
      response: theaterCreateDataSchema,
      status: 201,
      async handler({ auth, body }) {
        const { theaters } = access.service();
        const ownPath = join(theaters.theaterDir(body.theater_id), "repo");
        // A repository elsewhere on the host is the host's to lend: the host's git would run in it.
        if (!auth.admin && body.repo_path !== undefined && body.repo_path !== ownPath)
          throw new HttpError(
            "forbidden",
            "body.repo_path: only an admin names a repository outside theaters/",
            {
              field: "body.repo_path",
            },
          );
        const added = await theaters.add({
          theaterId: body.theater_id,
          repoPath: body.repo_path ?? ownPath,
          owner: auth.userId,
        });
        return { theater_id: added.theater_id, repo_path: added.repo_path, created: added.created };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/theaters",
      summary: "The caller's theaters (an admin's: every theater)",
      tag: "command",
      access: "user",
      response: z.object({ theaters: z.array(theaterRecordSchema) }),
      async handler({ auth }) {
        return { theaters: await access.service().theaters.list(auth.admin ? {} : { owner: auth.userId }) };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/runs",
      summary: "Create an OPEN run for an objective in one of the caller's theaters (seed 000 §3.2)",
      tag: "command",
      access: "user",
      body: runBody,
      response: runCreateDataSchema,
      status: 201,
      async handler({ auth, body }) {
        const userId = access.actingAs(auth, body.user_id ?? auth.userId);
        const theaterId = await access.theaterFor(
          auth,
          body.theater_hint ?? body.theater_id,
          "body.theater_hint",
        );
        const runId = await access.service().co.createRun({
          userId,
          theaterId,
          objective: body.objective,
          ...(body.metadata ? { metadata: body.metadata } : {}),
        });
        return { run_id: runId, status: "OPEN" as const };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/runs",
      summary: "The caller's runs, newest first (an admin's: every run)",
      tag: "command",
      access: "user",
      response: runList,
      async handler({ auth }) {
        const runs = await listRuns(access.service().store, auth.admin ? {} : { userId: auth.userId });
        return { runs };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/runs/:run_id",
      summary: "A run's status, orders (plan key, state, AAR) and artifacts (seed 000 §3.1)",
      tag: "command",
      access: "user",
      params: runParams,
      response: runSnapshotDataSchema,
      async handler({ auth, params }) {
        await access.run(auth, params.run_id);
        return runOf(params.run_id);
      },
    }),
    runRoute("plan", planDataSchema, "Plan the run into orders with their dependencies (seed 000 §3.2)"),
    runRoute("dispatch", dispatchDataSchema, "Enqueue the orders whose dependencies are integrated"),
    runRoute("synthesize", synthesizeDataSchema, "Conclude the run with a reply once its orders are over"),
    defineRoute({
      method: "POST",
      url: "/api/runs/:run_id/cancel",
      summary: "Cancel an OPEN run and its orders that are not over; answers the run",
      tag: "command",
      access: "user",
      params: runParams,
      body: cancelBody,
      response: runSnapshotDataSchema,
      async handler({ auth, params, body }) {
        await access.run(auth, params.run_id);
        const reason = body?.reason ?? `cancelled by ${auth.userId}`;
        const { cancelled } = await access.service().co.cancel(params.run_id, reason);
        return { ...(await runOf(params.run_id)), cancelled };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/orders/:order_id",
      summary:
        "An order's status, attempt, worktree, AAR and artifact pointers, and its plan (seed 000 §3.1)",
      tag: "command",
      access: "user",
      params: orderParams,
      response: orderSnapshotDataSchema,
      async handler({ auth, params }) {
        await access.order(auth, params.order_id);
        return access.service().co.orderStatus(params.order_id);
      },
    }),
  ];
}
