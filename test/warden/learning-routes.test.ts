import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandService } from "../../src/command/index.js";
import { appendSyntheticRun } from "../support/learning-history.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The learning policy under the warden's users: a run's owner rates it, an admin ticks, pins and rolls back,
// everyone signed in reads the policy; the next plan's unnamed profile follows the active version.

let h: WardenHarness;
let alice: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let admin: ReturnType<typeof api>;
let command: CommandService;

type Answer = { ok: boolean; data: Record<string, unknown> | null; error: { message: string } | null };
const json = async (response: Response) => (await response.json()) as Answer;
const data = async (response: Response) => (await json(response)).data ?? {};
const PLAN = '{"orders": [{"key": "d", "type": "draft", "objective": "Draft the summary"}]}';

beforeAll(async () => {
  h = await startWardenHarness({
    configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 }, command: { ...c.command, workers: 0 } }),
  });
  alice = api(h.url, await h.addUser("alice"));
  bob = api(h.url, await h.addUser("bob"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
  expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
  const service = h.warden.context.command;
  if (!service) throw new Error("command is off in the harness");
  command = service;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** Plans a one-draft run for alice through the model and answers the profile its order got. */
async function plannedDraftProfile(): Promise<{ runId: string; profile: string }> {
  const created = await data(await alice("POST", "/api/runs", { theater_hint: "demo", objective: "Sum up" }));
  const runId = created.run_id as string;
  h.model.enqueue(reply.text(PLAN));
  const planned = await data(await alice("POST", `/api/runs/${runId}/plan`));
  const [orderId] = planned.order_ids as string[];
  const order = await data(await alice("GET", `/api/orders/${orderId}`));
  return { runId, profile: (order.plan as { profile: { name: string } }).profile.name };
}

describe("learning over HTTP", () => {
  it("rates runs, ticks, routes the next plan, pins and rolls back, each by its rightful caller", async () => {
    const first = await plannedDraftProfile();
    expect(first.profile).toBe("executor_default");

    const writer = await appendSyntheticRun(command.store, [
      { type: "draft", profile: "writer", outcome: "completed", latencyMs: 1500 },
    ]);
    await appendSyntheticRun(command.store, [
      { type: "draft", profile: "terse", outcome: "completed", latencyMs: 800 },
      { type: "draft", profile: "terse", outcome: "failed" },
    ]);
    expect((await bob("POST", `/api/runs/${first.runId}/feedback`, { rating: "down" })).status).toBe(404);
    const rated = await alice("POST", `/api/runs/${first.runId}/feedback`, { rating: "up", note: "good" });
    expect(rated.status).toBe(201);
    expect(await data(rated)).toMatchObject({ run_id: first.runId, rating: "up" });
    expect((await admin("POST", `/api/runs/${writer.runId}/feedback`, { rating: "down" })).status).toBe(201);

    expect((await alice("POST", "/api/learn/tick")).status).toBe(403);
    const tick = await data(await admin("POST", "/api/learn/tick"));
    // writer (1 − 1 thumbs-down + 1)/(1 + 2) = 0.33 loses to terse (1 + 1)/(2 + 2) = 0.5.
    expect(tick).toMatchObject({ policy_version: 1, changed: true, corrections: 1 });
    expect(tick.recommendations).toEqual([expect.objectContaining({ task_type: "draft", profile: "terse" })]);
    const view = await data(await alice("GET", "/api/learn/policy"));
    expect(view).toMatchObject({ active_version: 1, pinned: false });
    expect((await plannedDraftProfile()).profile).toBe("terse");

    // writer (3 − 1 + 1)/(3 + 2) = 0.6 now beats terse.
    await appendSyntheticRun(command.store, [
      { type: "draft", profile: "writer", outcome: "completed", latencyMs: 900 },
      { type: "draft", profile: "writer", outcome: "completed", latencyMs: 1100 },
    ]);
    expect(await data(await admin("POST", "/api/learn/tick"))).toMatchObject({ policy_version: 2 });
    expect((await plannedDraftProfile()).profile).toBe("writer");
    const second = await data(await bob("GET", "/api/learn/policy?version=2"));
    expect((second.policy as { diff: unknown }).diff).toEqual({
      previous_version: 1,
      changes: [{ task_type: "draft", from: "terse", to: "writer" }],
    });

    expect((await alice("POST", "/api/learn/policy/rollback", { version: 1 })).status).toBe(403);
    expect(await data(await admin("POST", "/api/learn/policy/rollback", { version: 1 }))).toMatchObject({
      active_version: 1,
    });
    expect((await plannedDraftProfile()).profile).toBe("terse");
    expect(await data(await admin("POST", "/api/learn/policy/pin", { version: 1 }))).toMatchObject({
      active_version: 1,
      pinned: true,
    });
    expect(await data(await admin("POST", "/api/learn/tick"))).toMatchObject({
      policy_version: 1,
      changed: false,
      pinned: true,
    });
    const versions = await data(await alice("GET", "/api/learn/policy/versions"));
    expect(versions).toMatchObject({ active_version: 1, pinned: true });
    expect((versions.versions as unknown[]).length).toBe(2);
  });

  it("names the bad field of a body or query", async () => {
    const { runId } = await plannedDraftProfile();
    const badRating = await alice("POST", `/api/runs/${runId}/feedback`, { rating: "meh" });
    expect(badRating.status).toBe(400);
    expect((await json(badRating)).error?.message).toMatch(/body\.rating: must be one of down, up/);
    const badVersion = await admin("POST", "/api/learn/policy/pin", { version: "one" });
    expect(badVersion.status).toBe(400);
    expect((await json(badVersion)).error?.message).toMatch(/body\.version/);
    expect((await admin("POST", "/api/learn/policy/rollback", {})).status).toBe(400);
    const unknown = await admin("POST", "/api/learn/policy/rollback", { version: 99 });
    expect(unknown.status).toBe(404);
    const badQuery = await alice("GET", "/api/learn/policy?version=0");
    expect(badQuery.status).toBe(400);
    expect((await json(badQuery)).error?.message).toMatch(/query\.version/);
  });

  it("is listed in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/learn/tick",
        "/api/learn/policy",
        "/api/learn/policy/versions",
        "/api/learn/policy/pin",
        "/api/learn/policy/unpin",
        "/api/learn/policy/rollback",
        "/api/runs/{run_id}/feedback",
      ]),
    );
  });
});
