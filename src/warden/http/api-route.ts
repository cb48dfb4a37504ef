import type { FastifyInstance } from "fastify";
import { ok } from "../../contracts/index.js";
import { type OpenApiInfo, RouteRegistry, routeDefiner } from "../../http/index.js";
import { type Auth, type Authenticator, requireAccess } from "./auth.js";

/** A route of the warden's /api: its handler is given the signed-in caller (auth.ts). */
export const defineRoute = routeDefiner<Auth>();
export type WardenRoute = ReturnType<typeof defineRoute>;

/** The warden's JSON API: callers are checked by the authenticator, answers are the { ok, data, error } envelope. */
export function wardenApi(app: FastifyInstance, authenticator: Authenticator): RouteRegistry<Auth> {
  return new RouteRegistry<Auth>(app, {
    authorize: (request, access) => requireAccess(authenticator, request, access),
    answer: ok,
  });
}

/** What /api/openapi.json says of the warden beyond its routes: its name and the two ways to sign in. */
export const WARDEN_OPENAPI: Omit<OpenApiInfo, "extraPaths"> = {
  title: "IronClaw warden (ironclawd)",
  version: "0.1.0",
  securitySchemes: {
    bearer: { type: "http", scheme: "bearer", description: "a user token from `ironclaw user add`" },
    cookie: { type: "apiKey", in: "cookie", name: "ironclaw_session" },
  },
};
