import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { envelopeError } from "./envelope-format.js";
import { HttpError } from "./http-error.js";
import { openApiDocument } from "./openapi.js";
import { RouteRegistry, routeDefiner } from "./route-definer.js";
import { toHttpError } from "./to-http-error.js";

const defineRoute = routeDefiner<{ user: string }>();

async function serve() {
  const app = Fastify();
  app.setErrorHandler((error, _request, reply) => {
    const answer = toHttpError(error);
    return reply.code(answer.status).send(envelopeError(answer));
  });
  const routes = new RouteRegistry(app, {
    authorize: async (request, access) => {
      if (access !== "none" && request.headers.authorization !== "Bearer ok")
        throw new HttpError("unauthorized", "sign in");
      return { user: "ada" };
    },
    answer: (data) => ({ ok: true, data, error: null }),
  });
  routes.add(
    defineRoute({
      method: "POST",
      url: "/notes/:id",
      summary: "Write a note",
      tag: "notes",
      access: "user",
      params: z.object({ id: z.string() }),
      body: z.strictObject({ text: z.string().min(1, "must not be empty") }),
      status: 201,
      handler: async ({ params, body, auth }) => ({ id: params.id, text: body.text, by: auth.user }),
    }),
  );
  return { app, routes };
}

describe("RouteRegistry", () => {
  it("answers the handler's data in the surface's wrapping, with the route's status", async () => {
    const { app } = await serve();
    const reply = await app.inject({
      method: "POST",
      url: "/notes/n1",
      headers: { authorization: "Bearer ok" },
      payload: { text: "milk" },
    });
    expect([reply.statusCode, reply.json()]).toEqual([
      201,
      { ok: true, data: { id: "n1", text: "milk", by: "ada" }, error: null },
    ]);
  });

  it("refuses bad input with 400 naming the field and the rule, and a caller the surface refuses", async () => {
    const { app } = await serve();
    const bad = await app.inject({
      method: "POST",
      url: "/notes/n1",
      headers: { authorization: "Bearer ok" },
      payload: { text: "" },
    });
    expect([bad.statusCode, bad.json().error.message]).toEqual([400, "$.body.text: must not be empty"]);
    const anonymous = await app.inject({ method: "POST", url: "/notes/n1", payload: { text: "milk" } });
    expect([anonymous.statusCode, anonymous.json().error.code]).toEqual([401, "unauthorized"]);
  });

  it("documents each route in OpenAPI with its parameters, body and success status", async () => {
    const { routes } = await serve();
    const doc = openApiDocument(routes.registered, { title: "notes", version: "1" }) as {
      paths: Record<string, Record<string, { parameters: unknown[]; responses: Record<string, unknown> }>>;
    };
    const post = doc.paths["/notes/{id}"]?.post;
    expect(post?.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true })]);
    expect(Object.keys(post?.responses ?? {})).toEqual(["201", "400", "401"]);
  });
});
