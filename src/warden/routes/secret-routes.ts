import {
  secretBindingBodySchema,
  secretBindingSchema,
  secretInfoSchema,
  secretNameParamsSchema,
  secretPutBodySchema,
  secretRemovedSchema,
  secretScopeQuerySchema,
  secretsOverviewSchema,
  secretUnbindQuerySchema,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

/**
 * A user's secrets (issue #38): set from the UI's form or a script, listed by name only, bound to hosts. No
 * answer and no audit record carries a value; the only way out of the store is the egress proxy's header.
 * The owner, or an admin naming the user with ?user=.
 */
export function secretRoutes(ctx: Pick<WardenContext, "secrets" | "users">) {
  const { secrets } = ctx;
  const whose = (auth: Auth, user: string | undefined): string => {
    if (user === undefined || user === auth.userId) return auth.userId;
    if (!auth.admin) throw new HttpError("forbidden", "query.user: only an admin may name another user");
    if (!ctx.users.get(user)) throw new NotFoundError("user", user);
    return user;
  };
  const by = (auth: Auth) => `user:${auth.userId}`;
  return [
    defineRoute({
      method: "GET",
      url: "/api/secrets",
      summary: "Your secrets' names (never values), their bindings to hosts, and which skills need which",
      tag: "secrets",
      access: "user",
      query: secretScopeQuerySchema,
      response: secretsOverviewSchema,
      handler: async ({ auth, query }) => secrets.overview(whose(auth, query.user)),
    }),
    defineRoute({
      method: "PUT",
      url: "/api/secrets/:name",
      summary: "Set a secret's value (stored encrypted; the answer names it and never echoes the value)",
      tag: "secrets",
      access: "user",
      params: secretNameParamsSchema,
      query: secretScopeQuerySchema,
      body: secretPutBodySchema,
      response: secretInfoSchema,
      handler: async ({ auth, params, query, body }) => {
        const info = secrets.store.set(whose(auth, query.user), params.name, body.value, by(auth));
        return { name: info.name, created_at: info.createdAt, updated_at: info.updatedAt };
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/secrets/:name",
      summary: "Delete a secret's value; its bindings stay and report the secret missing",
      tag: "secrets",
      access: "user",
      params: secretNameParamsSchema,
      query: secretScopeQuerySchema,
      response: secretRemovedSchema,
      handler: async ({ auth, params, query }) => {
        const removed = secrets.store.remove(whose(auth, query.user), params.name, by(auth));
        if (!removed) throw new NotFoundError("secret", params.name);
        return { removed };
      },
    }),
    defineRoute({
      method: "PUT",
      url: "/api/secrets/:name/bindings",
      summary:
        "Bind a secret to an exact host on 443: the header it goes into and its format, methods, paths",
      tag: "secrets",
      access: "user",
      params: secretNameParamsSchema,
      query: secretScopeQuerySchema,
      body: secretBindingBodySchema,
      response: secretBindingSchema,
      handler: async ({ auth, params, query, body }) => {
        const userId = whose(auth, query.user);
        const binding = secrets.bindings.bind(userId, params.name, body, by(auth));
        return {
          secret: binding.secretName,
          host: binding.host,
          port: 443 as const,
          header: binding.header,
          format: binding.format,
          ...(binding.methods ? { methods: binding.methods } : {}),
          ...(binding.paths ? { paths: binding.paths } : {}),
          skill: null,
          secret_set: secrets.store.has(userId, params.name),
        };
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/secrets/:name/bindings",
      summary: "Remove your binding of a secret to a host (a skill's declaration goes with the skill)",
      tag: "secrets",
      access: "user",
      params: secretNameParamsSchema,
      query: secretUnbindQuerySchema,
      response: secretRemovedSchema,
      handler: async ({ auth, params, query }) => {
        const removed = secrets.bindings.unbind(whose(auth, query.user), params.name, query.host, by(auth));
        if (!removed) throw new NotFoundError("binding", `${params.name} → ${query.host}`);
        return { removed };
      },
    }),
  ];
}
