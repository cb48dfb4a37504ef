import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { runCreated } from "../ledger/events.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The warden hosts command's ledger: ledger.db under IRONCLAW_HOME, its routes under /api/ledger behind the
// warden's users — a user reads their own runs, an admin reads and appends everything.

let h: WardenHarness;
let alice: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let admin: ReturnType<typeof api>;

type Answer = {
  ok: boolean;
  data: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
};
const json = async (response: Response) => (await response.json()) as Answer;

beforeAll(async () => {
  h = await startWardenHarness({ configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 } }) });
  alice = api(h.url, await h.addUser("alice"));
  bob = api(h.url, await h.addUser("bob"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("the warden's ledger", () => {
  it("is ledger.db under IRONCLAW_HOME, the same file another process reads", async () => {
    const path = join(h.home, "ledger.db");
    expect(existsSync(path)).toBe(true);
    const appended = await admin("POST", "/api/ledger/events", {
      ...runCreated("run-file"),
      payload: { objective: "x", user_id: "alice" },
    });
    expect(appended.status).toBe(201);
    const reader = await SqliteEventStore.open({ path, mustExist: true });
    try {
      expect((await reader.getRun("run-file"))?.objective).toBe("x");
    } finally {
      await reader.close();
    }
  });

  it("shows a run to its owner and admins, and to another user as unknown", async () => {
    await admin("POST", "/api/ledger/events", {
      ...runCreated("run-alice"),
      payload: { objective: "Summarize", user_id: "alice" },
    });
    const own = await alice("GET", "/api/ledger/runs/run-alice");
    expect(own.status).toBe(200);
    expect((await json(own)).data).toMatchObject({ run_id: "run-alice", status: "OPEN" });
    expect((await admin("GET", "/api/ledger/runs/run-alice")).status).toBe(200);
    const foreign = await bob("GET", "/api/ledger/runs/run-alice");
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).error?.code).toBe("not_found");
    const events = await json(await alice("GET", "/api/ledger/events?run_id=run-alice"));
    const types = (events.data?.events ?? []) as Array<{ type: string }>;
    expect(types.map((e) => e.type)).toEqual(["RUN_CREATED"]);
    expect((await bob("GET", "/api/ledger/events?run_id=run-alice")).status).toBe(404);
  });

  it("lets only admins append, and users read events only by their own run", async () => {
    const append = await alice("POST", "/api/ledger/events", runCreated("run-forged"));
    expect(append.status).toBe(403);
    expect((await json(append)).error?.message).toMatch(/admin/);
    const everything = await alice("GET", "/api/ledger/events");
    expect(everything.status).toBe(403);
    expect((await json(everything)).error?.message).toMatch(/query\.run_id/);
    expect((await admin("GET", "/api/ledger/events")).status).toBe(200);
    expect((await api(h.url, undefined)("GET", "/api/ledger/runs/run-alice")).status).toBe(401);
  });

  it("follows a run's events for the UI's session cookie, its owner's only", async () => {
    const cookieOf = async (userId: string) => {
      const signedIn = await fetch(h.warden.loginLink(userId), { redirect: "manual" });
      return (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    };
    const follow = "/api/ledger/events?follow=true&run_id=run-alice";
    const stop = new AbortController();
    const stream = await fetch(`${h.url}${follow}`, {
      headers: { cookie: await cookieOf("alice") },
      signal: stop.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = stream.body?.getReader();
    let text = "";
    while (reader && !text.includes("RUN_CREATED"))
      text += new TextDecoder().decode((await reader.read()).value);
    stop.abort();
    expect(text).toContain("run-alice");
    const foreign = await fetch(`${h.url}${follow}`, { headers: { cookie: await cookieOf("bob") } });
    expect(foreign.status).toBe(404);
  });

  it("is listed in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/ledger/events",
        "/api/ledger/runs/{run_id}",
        "/api/ledger/orders/{order_id}",
      ]),
    );
  });
});
