import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Command under the warden's users: theaters and runs are their user's, another user gets 404, an admin sees
// all. Planning goes to the warden's planning model — here the scripted OpenAI-compatible server, over HTTP.

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
const data = async (response: Response) => (await json(response)).data ?? {};
const PLAN =
  '```json\n{"orders": [{"key": "a1", "type": "research", "objective": "Read the repository"}]}\n```';

beforeAll(async () => {
  // No workers: these runs are followed through the ledger only; orders are not run in cells here.
  h = await startWardenHarness({
    configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 }, command: { ...c.command, workers: 0 } }),
  });
  alice = api(h.url, await h.addUser("alice"));
  bob = api(h.url, await h.addUser("bob"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
  const made = await alice("POST", "/api/theaters", { theater_id: "demo" });
  expect(made.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("theaters", () => {
  it("are made under IRONCLAW_HOME/theaters and listed for their owner only", async () => {
    const own = await data(await alice("GET", "/api/theaters"));
    expect(own.theaters).toEqual([
      expect.objectContaining({
        theater_id: "demo",
        owner: "alice",
        repo_path: join(h.home, "theaters", "demo", "repo"),
      }),
    ]);
    expect((await data(await bob("GET", "/api/theaters"))).theaters).toEqual([]);
    expect((await data(await admin("GET", "/api/theaters"))).theaters).toHaveLength(1);
  });

  it("refuse a user's repository elsewhere on the host, and a bad id by its field", async () => {
    const elsewhere = await bob("POST", "/api/theaters", { theater_id: "mine", repo_path: "/etc" });
    expect(elsewhere.status).toBe(403);
    expect((await json(elsewhere)).error?.message).toMatch(/body\.repo_path/);
    const bad = await bob("POST", "/api/theaters", { theater_id: "../up" });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error?.message).toMatch(/body\.theater_id/);
  });
});

describe("runs", () => {
  it("go from created to planned (by the model, over HTTP) to cancelled, seen only by their owner", async () => {
    const created = await alice("POST", "/api/runs", {
      theater_hint: "demo",
      objective: "Summarize the repo",
    });
    expect(created.status).toBe(201);
    const { run_id: runId } = (await data(created)) as { run_id: string; status: string };
    expect((await data(await alice("GET", `/api/runs/${runId}`))).status).toBe("OPEN");
    const foreign = await bob("GET", `/api/runs/${runId}`);
    expect(foreign.status).toBe(404);
    expect((await json(foreign)).error?.code).toBe("not_found");
    expect((await bob("POST", `/api/runs/${runId}/cancel`)).status).toBe(404);
    expect((await admin("GET", `/api/runs/${runId}`)).status).toBe(200);

    h.model.enqueue(reply.text(PLAN));
    const planned = await data(await alice("POST", `/api/runs/${runId}/plan`));
    const orderIds = planned.order_ids as string[];
    expect(orderIds).toHaveLength(1);
    expect(JSON.stringify(h.model.chatRequests().at(-1)?.messages)).toContain("Summarize the repo");
    const orderId = orderIds[0] ?? "";
    expect((await data(await alice("GET", `/api/orders/${orderId}`))).run_id).toBe(runId);
    expect((await bob("GET", `/api/orders/${orderId}`)).status).toBe(404);

    const cancelled = await data(
      await alice("POST", `/api/runs/${runId}/cancel`, { reason: "changed my mind" }),
    );
    expect(cancelled).toMatchObject({ run_id: runId, status: "CANCELLED", cancelled: [orderId] });
    const listed = (await data(await alice("GET", "/api/runs"))).runs as Array<{ run_id: string }>;
    expect(listed.map((r) => r.run_id)).toContain(runId);
    expect((await data(await bob("GET", "/api/runs"))).runs).toEqual([]);
  });

  it("refuse bad bodies naming the field, another user's theater, and acting as someone else", async () => {
    const empty = await alice("POST", "/api/runs", { theater_hint: "demo", objective: "" });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error?.message).toMatch(/body\.objective/);
    const notObject = await alice("POST", "/api/runs", "[1]");
    expect(notObject.status).toBe(400);
    const theirs = await bob("POST", "/api/runs", { theater_hint: "demo", objective: "x" });
    expect(theirs.status).toBe(404);
    const impostor = await bob("POST", "/api/runs", {
      user_id: "alice",
      theater_hint: "demo",
      objective: "x",
    });
    expect(impostor.status).toBe(403);
    expect((await json(impostor)).error?.message).toMatch(/body\.user_id/);
    const noTheater = await bob("POST", "/api/command/chat", { message: "hello", mode: "async" });
    expect(noTheater.status).toBe(400);
    expect((await json(noTheater)).error?.message).toMatch(/body\.theater_hint/);
    expect((await alice("POST", "/api/command/chat", { message: "hi", mode: "later" })).status).toBe(400);
    expect((await alice("POST", "/api/jobs", {})).status).toBe(403);
  });

  it("an async chat answers the run at once, which is then planned in the background", async () => {
    h.model.enqueue(reply.text(PLAN));
    const asked = await alice("POST", "/api/command/chat", {
      theater_hint: "demo",
      message: "Write a summary",
      mode: "async",
    });
    expect(asked.status).toBe(200);
    const { run_id: runId, status } = (await data(asked)) as { run_id: string; status: string };
    expect(status).toBe("OPEN");
    let orders: unknown[] = [];
    for (let i = 0; i < 100 && orders.length === 0; i++) {
      orders = ((await data(await alice("GET", `/api/runs/${runId}`))).orders as unknown[]) ?? [];
      if (orders.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(orders).toHaveLength(1);
  });
});

describe("chat", () => {
  it("a sync chat whose plan the model botches fails naming why, and its run ends cancelled", async () => {
    h.model.enqueue(reply.text("Sorry, I would rather not plan today."));
    const asked = await alice("POST", "/api/command/chat", {
      theater_hint: "demo",
      message: "Refactor it",
      mode: "sync",
    });
    expect(asked.status).toBe(400);
    expect((await json(asked)).error?.message).toMatch(/plan/);
    const [newest] = (await data(await alice("GET", "/api/runs"))).runs as Array<{
      run_id: string;
      objective: string;
    }>;
    expect(newest?.objective).toBe("Refactor it");
    const run = await data(await alice("GET", `/api/runs/${newest?.run_id}`));
    expect(run.status).toBe("CANCELLED");
  });
});

describe("the API document", () => {
  it("lists command's routes", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/theaters",
        "/api/runs",
        "/api/runs/{run_id}",
        "/api/runs/{run_id}/plan",
        "/api/runs/{run_id}/dispatch",
        "/api/runs/{run_id}/synthesize",
        "/api/runs/{run_id}/cancel",
        "/api/orders/{order_id}",
        "/api/worktrees",
        "/api/worktrees/{order_id}/prepare",
        "/api/worktrees/{order_id}/archive",
        "/api/worktrees/{order_id}",
        "/api/integrate",
        "/api/jobs",
        "/api/command/chat",
      ]),
    );
  });
});
