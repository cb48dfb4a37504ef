import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ledgerEventBatchSchema, ok } from "../contracts/index.js";
import { issuesFromZod, NotFoundError, nowIso, ValidationError } from "../core/index.js";
import { HttpError, RouteRegistry, routeDefiner, type Surface, sendEnvelopeError } from "../http/index.js";
import { parseEventInput } from "./event-input.js";
import type { EventStore } from "./event-store.js";
import { type EventStreamOptions, writeEventStream } from "./event-stream.js";
import { ledgerHttpErrorOf } from "./http-errors.js";
import { expectationsFor, parseQuery, readQuerySchema } from "./http-query.js";
import { parseJsonBody } from "./json-body.js";
import { guardRequest, type LedgerAuthenticator, type LedgerAuthorizer } from "./request-guard.js";

export interface LedgerRoutesOptions {
  store: EventStore;
  /** Largest accepted request body in bytes (default 1 MiB); larger bodies get 413 payload_too_large. */
  bodyLimit?: number;
  /** For GET /events?follow: how often a stream re-checks the head without a wake-up (default 200 ms). */
  pollIntervalMs?: number;
  heartbeatMs?: number;
  /**
   * Checks the bearer token of every request (but /health). Without it the routes answer only loopback
   * connections naming a loopback Host, so they never serve a network unauthenticated.
   */
  authenticate?: LedgerAuthenticator;
  /** Checks every request itself instead of `authenticate` (a host that mounts the ledger behind its users). */
  authorize?: LedgerAuthorizer;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Callers are checked before any body is read, by the onRequest guard (request-guard.ts), so a route has no
 * caller of its own to know; every answer is the { ok, data, error } envelope.
 */
const ledgerSurface: Surface<undefined> = {
  authorize: async () => undefined,
  answer: ok,
};
const defineRoute = routeDefiner<undefined>();

/**
 * The ledger service of seed 000 §3.3 as a fastify plugin, so the warden can mount it under a prefix and the
 * standalone server (ledger-server.ts) can serve it alone. Its body parser and error handler are encapsulated:
 * every answer of these routes is the { ok, data, error } envelope, whatever the rest of the server does.
 */
export const ledgerRoutes: FastifyPluginAsync<LedgerRoutesOptions> = async (app, options) => {
  const { store } = options;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const streams = new Set<AbortController>();

  // Runs before any body is read: a refused request costs no parsing. guardRequest lets only
  // application/json through to the parser; the catch-all keeps one parser and one set of error messages.
  app.addHook("onRequest", (request) => guardRequest(request, options.authenticate, options.authorize));
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(typeof body === "string" ? body : body.toString("utf8")));
    } catch (error) {
      done(error as Error);
    }
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = ledgerHttpErrorOf(error);
    if (answer.status >= 500) request.log.error({ err: error }, "ledger request failed");
    return sendEnvelopeError(reply, answer);
  });
  app.addHook("preClose", async () => {
    for (const stream of streams) stream.abort();
  });

  const routes = new RouteRegistry(app, ledgerSurface);
  routes.add(
    defineRoute({
      method: "POST",
      url: "/events",
      summary: "Append one event (seed 000 §3.3); 201 when stored, 200 when it was already stored",
      tag: "ledger",
      access: "user",
      bodyLimit,
      async handler({ request, reply }) {
        const event = parseEventInput(requireBody(request));
        const result = await store.append(event, { expect: expectationsFor(request.query, event) });
        void reply.code(result.duplicate ? 200 : 201);
        return { appended: [result] };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/events/batch",
      summary: "Append a batch of events at once; 201 unless every one was already stored",
      tag: "ledger",
      access: "user",
      bodyLimit,
      async handler({ request, reply }) {
        // Checked as a whole first, so that paths read $.events[2].run_id as the writer sent them.
        const checked = ledgerEventBatchSchema.safeParse(requireBody(request));
        if (!checked.success) throw new ValidationError("ledger-event-batch", issuesFromZod(checked.error));
        const events = checked.data.events;
        const results = await store.appendBatch(events, {
          expect: expectationsFor(request.query, events[0]),
        });
        void reply.code(results.every((r) => r.duplicate) ? 200 : 201);
        return { appended: results };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/events",
      summary: "Read events after a position, filtered by run, order or type; or follow them as SSE",
      tag: "ledger",
      access: "user",
      // Parsed here rather than by the definer: the ledger names query fields `query.<name>` (http-query.ts).
      async handler({ request, reply }) {
        const query = parseQuery(readQuerySchema, request.query, "ledger-read-query");
        const filter = {
          ...(query.run_id === undefined ? {} : { runId: query.run_id }),
          ...(query.order_id === undefined ? {} : { orderId: query.order_id }),
          ...(query.type === undefined ? {} : { types: query.type }),
        };
        if (query.follow ?? wantsEventStream(request)) {
          return streamEvents(reply, { after: lastEventId(request) ?? query.after ?? 0, filter });
        }
        const head = await store.head();
        const events = await store.read({
          ...filter,
          after: query.after ?? 0,
          through: head,
          limit: query.limit ?? 100,
        });
        const full = events.length === (query.limit ?? 100);
        // next_after lets a filtered reader skip what it has scanned even when nothing matched.
        const nextAfter = full ? (events.at(-1)?.position ?? head) : head;
        return { events, head, next_after: nextAfter };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/runs/:run_id",
      summary: "A run's snapshot",
      tag: "ledger",
      access: "user",
      params: z.object({ run_id: z.string() }),
      async handler({ params }) {
        const run = await store.getRun(params.run_id);
        if (!run) throw new NotFoundError("run", params.run_id);
        return run;
      },
    }),
    defineRoute({
      method: "GET",
      url: "/orders/:order_id",
      summary: "An order's snapshot",
      tag: "ledger",
      access: "user",
      params: z.object({ order_id: z.string() }),
      async handler({ params }) {
        const order = await store.getOrder(params.order_id);
        if (!order) throw new NotFoundError("order", params.order_id);
        return order;
      },
    }),
    defineRoute({
      method: "GET",
      url: "/health",
      summary: "Whether the store answers: 200 ok, or 503 degraded",
      tag: "ledger",
      access: "none",
      async handler({ reply }) {
        try {
          await store.head();
          return { service: "ledger", status: "ok", ts: nowIso() };
        } catch {
          void reply.code(503);
          return { service: "ledger", status: "degraded", ts: nowIso() };
        }
      },
    }),
  );

  async function streamEvents(
    reply: FastifyReply,
    from: Pick<EventStreamOptions, "after" | "filter">,
  ): Promise<void> {
    const controller = new AbortController();
    streams.add(controller);
    reply.raw.once("close", () => controller.abort());
    reply.hijack();
    try {
      await writeEventStream(reply.raw, store, {
        ...from,
        signal: controller.signal,
        ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      });
    } finally {
      streams.delete(controller);
    }
  }
};

function requireBody(request: FastifyRequest): unknown {
  if (request.body === undefined)
    throw new HttpError("bad_request", "request body is required: send a JSON object");
  return request.body;
}

function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("text/event-stream");
}

/** An EventSource reconnecting sends the id of the last event it got; that wins over ?after. */
function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers["last-event-id"];
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value))
    throw new HttpError("bad_request", "Last-Event-ID must be the position of the last event received");
  return Number(value);
}
