import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { issuesFromZod, ValidationError } from "../core/index.js";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Who may call a route: anybody, any signed-in caller, or an admin. The surface decides what that means. */
export type Access = "none" | "user" | "admin";

export interface RouteInput<P, Q, B, A> {
  params: P;
  query: Q;
  body: B;
  /** Who is calling, as the surface's `authorize` found them. */
  auth: A;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One JSON route: its schemas validate the request (a bad field is a 400 naming the field and the rule), type
 * the handler and document the route in OpenAPI. The handler returns the data of the answer, which the surface
 * wraps (the envelope's `data`), or sends the reply itself (streams, redirects).
 */
export interface Route<P = unknown, Q = unknown, B = unknown, A = unknown> {
  method: Method;
  url: string;
  summary: string;
  tag: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The data of a success answer; omitted for routes that answer otherwise (redirects, streams). */
  response?: z.ZodType;
  status?: number;
  bodyLimit?: number;
  handler(input: RouteInput<P, Q, B, A>): Promise<unknown>;
}

/**
 * A `defineRoute` for a surface whose callers are `A`: the schemas given type each route's handler, and the
 * routes of one surface go into one list.
 */
export function routeDefiner<A>() {
  return <P = undefined, Q = undefined, B = undefined>(
    route: Route<P, Q, B, A>,
  ): Route<unknown, unknown, unknown, A> => route as unknown as Route<unknown, unknown, unknown, A>;
}

/** What differs between the surfaces that serve routes: who is calling, and how a success is wrapped. */
export interface Surface<A> {
  /** Runs before the input is read; throws an HttpError (401, 403, 429) to refuse. */
  authorize(request: FastifyRequest, access: Access): Promise<A>;
  /** The body of a success answer around the handler's data (the envelope's `ok(data)`). */
  answer(data: unknown): unknown;
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? (where === "body" ? undefined : {}));
  if (!result.success) throw new ValidationError(`request ${where}`, issuesFromZod(result.error, [where]));
  return result.data;
}

/** Registers routes on a fastify instance and remembers them for the OpenAPI document. */
export class RouteRegistry<A> {
  private readonly routes: Route<unknown, unknown, unknown, A>[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly surface: Surface<A>,
  ) {}

  get registered(): readonly Route<unknown, unknown, unknown, A>[] {
    return this.routes;
  }

  add(...routes: Route<unknown, unknown, unknown, A>[]): void {
    for (const route of routes) {
      this.routes.push(route);
      this.app.route({
        method: route.method,
        url: route.url,
        ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
        handler: async (request, reply) => {
          const auth = await this.surface.authorize(request, route.access);
          const data = await route.handler({
            params: parse(route.params, request.params, "params"),
            query: parse(route.query, request.query, "query"),
            body: parse(route.body, request.body, "body"),
            auth,
            request,
            reply,
          });
          if (reply.sent || reply.raw.headersSent) return reply;
          // A handler may have chosen another status (202 for a held edit); otherwise the route's own.
          const status = reply.statusCode !== 200 ? reply.statusCode : (route.status ?? 200);
          return reply.code(status).send(this.surface.answer(data ?? null));
        },
      });
    }
  }
}
