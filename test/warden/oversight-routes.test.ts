import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The observer's and the duty officer's routes under the warden's users: a theater's patrol is its owner's (another
// user gets 404), the duty officer's patrol of everything an admin's; bodies are checked field by field.

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
  // The timer is off (patrol_seconds = 0): every patrol here is one a request asked for.
  h = await startWardenHarness({
    configure: (c) => ({
      ...c,
      cells: { ...c.cells, pool_size: 0 },
      command: { ...c.command, workers: 0, patrol_seconds: 0 },
    }),
  });
  alice = api(h.url, await h.addUser("alice"));
  bob = api(h.url, await h.addUser("bob"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
  expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("POST /api/theaters/{theater_id}/patrol", () => {
  it("patrols the owner's theater, with or without a body", async () => {
    for (const body of [undefined, {}, { stall_after_seconds: 60, dry_run: true }]) {
      const answer = await alice("POST", "/api/theaters/demo/patrol", body);
      expect(answer.status).toBe(200);
      const { data } = await json(answer);
      expect(data).toMatchObject({ findings: [], reissued_order_ids: [], events_emitted: 0 });
      expect(String(data?.ticked_at)).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    }
    expect((await admin("POST", "/api/theaters/demo/patrol")).status).toBe(200);
  });

  it("answers another user as if the theater did not exist", async () => {
    const answer = await bob("POST", "/api/theaters/demo/patrol", {});
    expect(answer.status).toBe(404);
    expect((await json(answer)).error?.code).toBe("not_found");
  });

  it("refuses a bad body naming the field and the rule", async () => {
    const negative = await alice("POST", "/api/theaters/demo/patrol", { stall_after_seconds: -5 });
    expect(negative.status).toBe(400);
    expect((await json(negative)).error?.message).toMatch(/body\.stall_after_seconds/);
    const flag = await alice("POST", "/api/theaters/demo/patrol", { dry_run: "yes" });
    expect(flag.status).toBe(400);
    expect((await json(flag)).error?.message).toMatch(/body\.dry_run/);
  });
});

describe("POST /api/patrol", () => {
  it("is an admin's: it ticks the duty officer, which records its PATROL_TICK", async () => {
    expect((await alice("POST", "/api/patrol", {})).status).toBe(403);
    const answer = await admin("POST", "/api/patrol", {});
    expect(answer.status).toBe(200);
    expect((await json(answer)).data).toMatchObject({ reissued_order_ids: [] });
    const ticks = await h.warden.context.command?.store.read({ types: ["PATROL_TICK"] });
    expect(ticks).toHaveLength(1);
    const bad = await admin("POST", "/api/patrol", { stall_after_seconds: "soon" });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error?.message).toMatch(/body\.stall_after_seconds/);
  });

  it("both patrols are in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/theaters/{theater_id}/patrol", "/api/patrol"]),
    );
  });
});
