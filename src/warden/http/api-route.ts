import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ok } from "../../contracts/index.js";
import { issuesFromZod, ValidationError } from "../../core/index.js";
import { type Access, type Auth, type Authenticator, requireAccess } from "./auth.js";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: Auth;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One API route: its schemas validate the request (a bad field is a 400 naming it), type the handler and
 * document the route in /api/openapi.json. The handler returns the `data` of the { ok, data, error } answer,
 * or sends the reply itself (streams).
 */
export interface ApiRoute<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  url: string;
  summary: string;
  tag: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The `data` of a 200 answer; omitted for routes that answer otherwise (redirects, streams). */
  response?: z.ZodType;
  status?: number;
  bodyLimit?: number;
  handler(input: RouteInput<P, Q, B>): Promise<unknown>;
}

export function defineRoute<P = undefined, Q = undefined, B = undefined>(route: ApiRoute<P, Q, B>): ApiRoute {
  return route as unknown as ApiRoute;
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value ?? (where === "body" ? undefined : {}));
  if (!result.success) throw new ValidationError(`request ${where}`, issuesFromZod(result.error, [where]));
  return result.data;
}

/** Registers routes and remembers them for the OpenAPI document. */
export class ApiRegistry {
  private readonly routes: ApiRoute[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly authenticator: Authenticator,
  ) {}

  add(...routes: ApiRoute[]): void {
    for (const route of routes) {
      this.routes.push(route);
      this.app.route({
        method: route.method,
        url: route.url,
        ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
        handler: async (request, reply) => {
          const auth = await requireAccess(this.authenticator, request, route.access);
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
          return reply.code(status).send(ok(data ?? null));
        },
      });
    }
  }

  /** OpenAPI 3.1 for every registered route (plus the ones documented by hand: WebSocket, webhooks). */
  openApi(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const schema = (s: z.ZodType, io: "input" | "output") =>
      z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12" });
    for (const route of this.routes) {
      const path = route.url.replace(/:([A-Za-z_]+)/g, "{$1}");
      const parameters: unknown[] = [];
      for (const [where, s] of [
        ["path", route.params],
        ["query", route.query],
      ] as const) {
        if (!s) continue;
        const json = schema(s, "input") as { properties?: Record<string, unknown>; required?: string[] };
        for (const [name, property] of Object.entries(json.properties ?? {})) {
          parameters.push({
            name,
            in: where,
            required: where === "path" || (json.required ?? []).includes(name),
            schema: property,
          });
        }
      }
      const envelope = (data: unknown) => ({
        type: "object",
        properties: { ok: { const: true }, data, error: { type: "null" } },
        required: ["ok", "data", "error"],
      });
      paths[path] ??= {};
      (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
        summary: route.summary,
        tags: [route.tag],
        ...(route.access === "none" ? { security: [] } : {}),
        ...(parameters.length ? { parameters } : {}),
        ...(route.body
          ? {
              requestBody: {
                required: true,
                content: { "application/json": { schema: schema(route.body, "input") } },
              },
            }
          : {}),
        responses: {
          [String(route.status ?? 200)]: {
            description: "success",
            ...(route.response
              ? { content: { "application/json": { schema: envelope(schema(route.response, "output")) } } }
              : {}),
          },
          "400": { $ref: "#/components/responses/Invalid" },
          ...(route.access === "none" ? {} : { "401": { $ref: "#/components/responses/Unauthorized" } }),
        },
      };
    }
    return {
      openapi: "3.1.0",
      info: { title: "IronClaw warden (ironclawd)", version: "0.1.0" },
      paths: { ...paths, ...extra },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "a user token from `ironclaw user add`" },
          cookie: { type: "apiKey", in: "cookie", name: "ironclaw_session" },
        },
        responses: {
          Invalid: { description: "bad input: error.message names the field and the rule" },
          Unauthorized: { description: "no valid token or session" },
        },
      },
      security: [{ bearer: [] }, { cookie: [] }],
    };
  }
}
