import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/core/index.js";
import { databaseBytes } from "../support/database-bytes.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// /api/secrets on a real warden: the value goes in once and no answer, audit record, log line or byte of
// host.db gives it back; a user reaches only their own secrets, an admin anyone's with ?user=.
const VALUE = "sk_live_RouteSecret_4f3e2d1c0b9a8877";
let h: WardenHarness;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let boss: ReturnType<typeof api>;
let logs = "";

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    logger: createLogger("warden-test", { level: "trace" }, sink),
  });
  ada = api(h.url, await h.addUser("ada"));
  bob = api(h.url, await h.addUser("bob"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("/api/secrets", () => {
  it("stores a value without echoing it and lists names, bindings and missing secrets", async () => {
    const put = await ada("PUT", "/api/secrets/STRIPE_KEY", { value: VALUE });
    const putText = await put.text();
    expect(put.status).toBe(200);
    expect(putText).not.toContain(VALUE);
    expect(JSON.parse(putText).data).toMatchObject({ name: "STRIPE_KEY", created_at: expect.any(String) });

    const bound = await ada("PUT", "/api/secrets/STRIPE_KEY/bindings", {
      host: "api.stripe.com",
      methods: ["POST"],
    });
    expect(bound.status).toBe(200);
    expect(((await bound.json()) as { data: unknown }).data).toEqual({
      secret: "STRIPE_KEY",
      host: "api.stripe.com",
      port: 443,
      header: "Authorization",
      format: "Bearer {secret}",
      methods: ["POST"],
      skill: null,
      secret_set: true,
    });
    await ada("PUT", "/api/secrets/GITHUB_TOKEN/bindings", { host: "api.github.com" });

    const listed = await ada("GET", "/api/secrets");
    const text = await listed.text();
    expect(text).not.toContain(VALUE);
    const overview = JSON.parse(text).data as {
      secrets: Array<{ name: string }>;
      bindings: Array<{ secret: string; secret_set: boolean }>;
    };
    expect(overview.secrets.map((s) => s.name)).toEqual(["STRIPE_KEY"]);
    expect(overview.bindings.map((b) => [b.secret, b.secret_set])).toEqual([
      ["GITHUB_TOKEN", false],
      ["STRIPE_KEY", true],
    ]);
    // The proxy's view: the value, behind a placeholder only this cell's requests can use.
    const plan = h.warden.context.secrets.cellEgressPlan("ada", "cell-ada-1");
    expect(plan.bindings).toEqual([expect.objectContaining({ host: "api.stripe.com", secret: VALUE })]);
    expect(plan.env.STRIPE_KEY).toMatch(/^ironclaw-ph-/);
    expect(plan.unresolved).toEqual([
      { secretName: "GITHUB_TOKEN", host: "api.github.com", reason: "missing secret" },
    ]);
  });

  it("names the field and rule of bad input without quoting the value", async () => {
    const multiline = `${VALUE}\r\nX-Injected: 1`;
    const bad = await ada("PUT", "/api/secrets/STRIPE_KEY", { value: multiline });
    expect(bad.status).toBe(400);
    const body = await bad.text();
    expect(body).toContain("body.value: must not contain line breaks");
    expect(body).not.toContain(VALUE);
    const name = await ada("PUT", "/api/secrets/lower-case", { value: "x" });
    expect(name.status).toBe(400);
    expect(await name.text()).toContain("params.name: must be 1-64 capital letters");
    const host = await ada("PUT", "/api/secrets/STRIPE_KEY/bindings", { host: "10.0.0.1" });
    expect(await host.text()).toContain("body.host: must be an exact DNS name");
  });

  it("keeps each user to their own secrets; an admin reaches anyone's with ?user=", async () => {
    const foreign = await bob("GET", "/api/secrets?user=ada");
    expect(foreign.status).toBe(403);
    expect(await bob("PUT", "/api/secrets/STRIPE_KEY?user=ada", { value: "stolen" })).toHaveProperty(
      "status",
      403,
    );
    const own = (await (await bob("GET", "/api/secrets")).json()) as { data: { secrets: unknown[] } };
    expect(own.data.secrets).toEqual([]);
    const admin = (await (await boss("GET", "/api/secrets?user=ada")).json()) as {
      data: { user: string; secrets: Array<{ name: string }> };
    };
    expect(admin.data).toMatchObject({ user: "ada", secrets: [{ name: "STRIPE_KEY" }] });
    expect((await boss("GET", "/api/secrets?user=nobody")).status).toBe(404);
  });

  it("documents its routes in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths["/api/secrets"] ?? {})).toEqual(["get"]);
    expect(Object.keys(doc.paths["/api/secrets/{name}"] ?? {}).sort()).toEqual(["delete", "put"]);
    expect(Object.keys(doc.paths["/api/secrets/{name}/bindings"] ?? {}).sort()).toEqual(["delete", "put"]);
  });

  it("unbinds and deletes, audited by name, and the value is in no log line and no byte of host.db", async () => {
    expect((await ada("DELETE", "/api/secrets/GITHUB_TOKEN/bindings?host=api.github.com")).status).toBe(200);
    expect((await ada("DELETE", "/api/secrets/GITHUB_TOKEN/bindings?host=api.github.com")).status).toBe(404);
    expect((await ada("DELETE", "/api/secrets/STRIPE_KEY")).status).toBe(200);
    expect((await ada("DELETE", "/api/secrets/STRIPE_KEY")).status).toBe(404);
    const trail = h.warden.context.audit
      .list({ userId: "ada" })
      .filter((r) => r.action.startsWith("secret."));
    expect(trail.map((r) => r.action).reverse()).toEqual([
      "secret.set",
      "secret.bound",
      "secret.bound",
      "secret.unbound",
      "secret.removed",
    ]);
    expect(trail.every((r) => r.actor === "user:ada")).toBe(true);
    expect(JSON.stringify(trail)).not.toContain(VALUE);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(VALUE);
    expect(databaseBytes(`${h.home}/host.db`)).not.toContain(VALUE);
  });
});
