import { describe, expect, it } from "vitest";
import { createApiClient } from "./api-client.js";

const answer = (status: number, body: unknown) =>
  new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });

describe("the API client", () => {
  it("fills path parameters encoded, sends the body as JSON and returns the data", async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const api = createApiClient(async (url, init) => {
      seen.push({ url: String(url), init: init ?? {} });
      return answer(200, { ok: true, data: { id: "a b", title: "T" }, error: null });
    });
    const result = await api.call("PATCH /api/sessions/:id", { params: { id: "a b" }, body: { title: "T" } });
    expect(result).toMatchObject({ ok: true, data: { id: "a b" } });
    expect(seen[0]?.url).toBe("/api/sessions/a%20b");
    expect(seen[0]?.init).toMatchObject({
      method: "PATCH",
      body: '{"title":"T"}',
      credentials: "same-origin",
    });
  });

  it("sends a picked file as its bytes, not as JSON", async () => {
    const seen: RequestInit[] = [];
    const api = createApiClient(async (_url, init) => {
      seen.push(init ?? {});
      return answer(200, { ok: true, data: {}, error: null });
    });
    const file = new Blob([new Uint8Array([0x1f, 0x8b, 8])]);
    await api.call("POST /api/skills/review", { body: file });
    expect(seen[0]?.body).toBe(file);
    expect(seen[0]?.headers).toEqual({
      accept: "application/json",
      "content-type": "application/octet-stream",
    });
  });

  it("returns refusals, their issues, network failures and non-envelope answers as data", async () => {
    const refusal = createApiClient(async () =>
      answer(400, {
        ok: false,
        data: null,
        error: {
          code: "validation_failed",
          message: "m",
          details: { issues: [{ path: "p", message: "r" }] },
        },
      }),
    );
    expect(await refusal.call("GET /api/memory/search", { query: { q: "" } })).toEqual({
      ok: false,
      status: 400,
      error: { code: "validation_failed", message: "m", issues: [{ path: "p", message: "r" }] },
    });
    const down = createApiClient(async () => {
      throw new TypeError("fetch failed");
    });
    expect(await down.call("GET /api/me")).toMatchObject({
      ok: false,
      status: 0,
      error: { code: "network" },
    });
    const html = createApiClient(async () => answer(502, "<html>bad gateway</html>"));
    expect(await html.call("GET /api/me")).toMatchObject({
      ok: false,
      status: 502,
      error: { code: "bad_answer" },
    });
  });

  it("tells its listeners of a 401 so the app can ask for a sign-in", async () => {
    const api = createApiClient(async () =>
      answer(401, { ok: false, data: null, error: { code: "unauthorized", message: "sign in" } }),
    );
    let told = 0;
    api.onUnauthorized(() => {
      told += 1;
    });
    await api.call("GET /api/sessions");
    expect(told).toBe(1);
  });

  it("leaves empty query values out", async () => {
    let url = "";
    const api = createApiClient(async (u) => {
      url = String(u);
      return answer(200, { ok: true, data: { entries: [] }, error: null });
    });
    await api.call("GET /api/audit/tools", { query: { tool: "bash", session: undefined, limit: 5 } });
    expect(url).toBe("/api/audit/tools?tool=bash&limit=5");
  });
});
