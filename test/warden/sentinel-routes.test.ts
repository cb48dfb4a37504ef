import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStore } from "../../src/ledger/index.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// The sentinel's routes on a warden: an audit now and a stop of the duty officer, both an admin's. The duty officer
// patrols every second here, so two silent seconds make it dead.

let h: WardenHarness;
let store: EventStore;
let alice: ReturnType<typeof api>;
let admin: ReturnType<typeof api>;

type Answer = { ok: boolean; data: Record<string, unknown> | null; error: { code: string } | null };
const json = async (response: Response) => (await response.json()) as Answer;

beforeAll(async () => {
  h = await startWardenHarness({
    configure: (c) => ({
      ...c,
      cells: { ...c.cells, pool_size: 0 },
      command: { ...c.command, workers: 0, patrol_seconds: 1 },
    }),
  });
  const command = h.warden.context.command;
  if (!command) throw new Error("command is off");
  store = command.store;
  alice = api(h.url, await h.addUser("alice"));
  admin = api(h.url, (await h.warden.context.users.add("root", { admin: true })).token);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("POST /api/audit and POST /api/patrol/stop", () => {
  it("are an admin's alone", async () => {
    for (const path of ["/api/audit", "/api/patrol/stop"]) {
      const answer = await alice("POST", path);
      expect(answer.status).toBe(403);
      expect((await json(answer)).error?.code).toBe("forbidden");
    }
  });

  it("a stopped duty officer is found dead by the next audit past two periods, escalated once and restarted", async () => {
    const stopped = await json(await admin("POST", "/api/patrol/stop"));
    expect(stopped.data).toMatchObject({ stopped: true });
    await sleep(2_500);
    const first = await json(await admin("POST", "/api/audit"));
    expect(first.data).toMatchObject({ verdict: "dead", escalated: true, backlog: 0 });
    const types = async () =>
      (await store.read({ types: ["ESCALATION_RAISED", "RECOVERY_STARTED", "RECOVERY_COMPLETED"] })).map(
        (e) => e.type,
      );
    expect(await types()).toEqual(["ESCALATION_RAISED", "RECOVERY_STARTED"]);

    // Restarted, it ticks at once; the audit after that tick records the recovery and raises nothing more.
    const [started] = await store.read({ types: ["RECOVERY_STARTED"] });
    while ((await store.read({ after: started?.position ?? 0, types: ["PATROL_TICK"] })).length === 0)
      await sleep(100);
    const second = await json(await admin("POST", "/api/audit"));
    expect(second.data).toMatchObject({ verdict: "healthy", escalated: false });
    expect(await types()).toEqual(["ESCALATION_RAISED", "RECOVERY_STARTED", "RECOVERY_COMPLETED"]);
  });

  it("are in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/audit", "/api/patrol/stop"]));
  });
});
