import { z } from "zod";
import type { Route } from "./route-definer.js";

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Hand-written entries for what is not a JSON route (WebSocket, webhooks, another surface's routes). */
  extraPaths?: Record<string, unknown>;
  securitySchemes?: Record<string, unknown>;
}

/**
 * OpenAPI 3.1 for routes served by a RouteRegistry: each success answer is documented inside the
 * `{ ok, data, error }` envelope, each route refuses bad input with a 400 and, unless public, callers without
 * a credential with a 401.
 */
export function openApiDocument(
  routes: readonly Route<unknown, unknown, unknown, unknown>[],
  info: OpenApiInfo,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schema = (s: z.ZodType, io: "input" | "output") =>
    z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12" });
  const envelope = (data: unknown) => ({
    type: "object",
    properties: { ok: { const: true }, data, error: { type: "null" } },
    required: ["ok", "data", "error"],
  });
  for (const route of routes) {
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
  const securitySchemes = info.securitySchemes ?? {};
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version },
    paths: { ...paths, ...info.extraPaths },
    components: {
      securitySchemes,
      responses: {
        Invalid: { description: "bad input: error.message names the field and the rule" },
        Unauthorized: { description: "no valid token or session" },
      },
    },
    security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
  };
}
