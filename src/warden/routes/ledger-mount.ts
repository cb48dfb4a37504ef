import type { FastifyInstance, FastifyRequest } from "fastify";
import { orderOwner, runOwner } from "../../command/index.js";
import { NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { ledgerRoutes } from "../../ledger/index.js";
import { type Auth, notSignedIn } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

export const LEDGER_PREFIX = "/api/ledger";

type LedgerDeps = Pick<WardenContext, "command" | "authenticator" | "config">;

/**
 * The ledger's own routes (seed 000 §3.3) under /api/ledger, behind the warden's users: a user reads the events
 * and snapshots of their own runs, an admin reads everything, and only an admin appends (the CO, vault and
 * workers write the ledger themselves; a hand-written event is an operator's repair). Callers sign in as on the
 * rest of /api, by token or by the UI's session cookie (which follows a run's events as they come).
 */
export async function mountLedger(app: FastifyInstance, ctx: LedgerDeps): Promise<void> {
  const command = ctx.command;
  if (!command) return;
  const store = command.store;
  await app.register(ledgerRoutes, {
    prefix: LEDGER_PREFIX,
    store,
    bodyLimit: ctx.config.server.body_limit,
    authorize: async (request) => {
      if (request.routeOptions.url === `${LEDGER_PREFIX}/health`) return;
      const auth = await ctx.authenticator.identify(request);
      if (!auth) throw notSignedIn();
      if (!auth.admin) await allowUser(request, auth);
    },
  });

  async function allowUser(request: FastifyRequest, auth: Auth): Promise<void> {
    if (request.method !== "GET")
      throw new HttpError(
        "forbidden",
        "only an admin appends to the ledger; runs are made with POST /api/runs",
      );
    const route = request.routeOptions.url?.slice(LEDGER_PREFIX.length);
    const params = request.params as Record<string, string | undefined>;
    const query = request.query as Record<string, string | undefined>;
    if (route === "/runs/:run_id") return ownRun(params.run_id, auth);
    if (route === "/orders/:order_id") return ownOrder(params.order_id, auth);
    if (route === "/events") {
      if (query.run_id !== undefined) return ownRun(query.run_id, auth);
      if (query.order_id !== undefined) return ownOrder(query.order_id, auth);
      throw new HttpError(
        "forbidden",
        "query.run_id: required unless you are an admin: a user reads the events of their own runs",
        { field: "query.run_id" },
      );
    }
  }

  // Another user's run answers as an unknown one would: its existence is not theirs to learn.
  async function ownRun(runId: string | undefined, auth: Auth): Promise<void> {
    if (runId === undefined || (await runOwner(store, runId)) !== auth.userId)
      throw new NotFoundError("run", runId ?? "");
  }

  async function ownOrder(orderId: string | undefined, auth: Auth): Promise<void> {
    if (orderId === undefined || (await orderOwner(store, orderId)) !== auth.userId)
      throw new NotFoundError("order", orderId ?? "");
  }
}

const ledgerPath = (summary: string, method: "get" | "post") => ({
  [method]: { summary, tags: ["ledger"], responses: { "200": { description: "{ ok, data, error }" } } },
});

/** The ledger's routes in the warden's OpenAPI document (they are served by the ledger's own plugin). */
export const LEDGER_OPENAPI_PATHS = {
  [`${LEDGER_PREFIX}/events`]: {
    ...ledgerPath("Append one event (admins)", "post"),
    ...ledgerPath("Read or follow (SSE) events; users give run_id or order_id of their own runs", "get"),
  },
  [`${LEDGER_PREFIX}/events/batch`]: ledgerPath("Append a batch of events at once (admins)", "post"),
  [`${LEDGER_PREFIX}/runs/{run_id}`]: ledgerPath("A run's snapshot (its owner and admins)", "get"),
  [`${LEDGER_PREFIX}/orders/{order_id}`]: ledgerPath(
    "An order's snapshot (its run's owner and admins)",
    "get",
  ),
  [`${LEDGER_PREFIX}/health`]: ledgerPath("Whether the ledger answers", "get"),
};
