import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvolutionStore } from "../../src/evolution/index.js";
import { fixtureBytes, snapshotState } from "../evolution/state-snapshot.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// POST /api/evolution/events through a real warden: the envelope answer, the byte-exact store under
// IRONCLAW_HOME/evolution, who may write which session, refusals that store nothing, and the body limit.

const BODY_LIMIT = 64 * 1024;
let h: WardenHarness;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let boss: ReturnType<typeof api>;
let state: string;

beforeAll(async () => {
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({ ...config, server: { ...config.server, body_limit: BODY_LIMIT } }),
  });
  ada = api(h.url, await h.addUser("ada"));
  bob = api(h.url, await h.addUser("bob"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
  state = join(h.home, "evolution");
}, 60_000);
afterAll(() => h?.close());

const post = (caller: ReturnType<typeof api>, name: string) =>
  caller("POST", "/api/evolution/events", fixtureBytes(name).toString("utf8"));

describe("POST /api/evolution/events", () => {
  it("stores a user's envelope exactly as sent and answers with what it stored and projected", async () => {
    const response = await post(ada, "seed_envelope.json");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { ok: boolean; data: Record<string, unknown>; error: null };
    expect(body).toMatchObject({ ok: true, error: null, data: { stored: 1, skipped: 0, projected: 1 } });
    const store = EvolutionStore.open(state);
    expect(store.receivedPayload(body.data.payload_sha256 as string)).toEqual(
      fixtureBytes("seed_envelope.json"),
    );
    expect(store.projected()[0]?.source_envelope_id).toBe("9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70");
    expect(store.envelopes()[0]?.received.submitted_by).toBeTruthy();

    const again = await post(ada, "seed_envelope.json");
    expect(((await again.json()) as { data: unknown }).data).toMatchObject({
      stored: 0,
      skipped: 1,
      projected: 0,
    });
  });

  it("lets the session's owner add to it, refuses another user whole, and lets an admin write any session", async () => {
    expect((await post(ada, "sample_batch.json")).status).toBe(200);
    const before = snapshotState(state);
    const refused = await post(bob, "sample_batch.json");
    expect(refused.status).toBe(403);
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("forbidden");
    expect(error.message).toContain(
      "$.events[0].session_id: session demo-session-001 belongs to another user",
    );
    expect(snapshotState(state)).toEqual(before);
    // A session nobody has sent yet is bob's to start.
    expect((await post(bob, "envelope_list.json")).status).toBe(200);
    const other = JSON.parse(fixtureBytes("seed_envelope.json").toString("utf8"));
    other.envelope_id = "admin-envelope";
    other.event.event_id = "admin-event";
    expect((await boss("POST", "/api/evolution/events", other)).status).toBe(200);
  });

  it("refuses a malformed payload with 400 naming the field, storing nothing", async () => {
    const before = snapshotState(state);
    const response = await post(ada, "malformed/score-above-one.json");
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("validation_failed");
    expect(error.message).toBe("$.body.event.score: must be between 0.0 and 1.0");
    expect(snapshotState(state)).toEqual(before);
  });

  it("answers 401 without a credential and 413 past the body limit, storing nothing", async () => {
    const before = snapshotState(state);
    expect(
      (
        await api(h.url, undefined)(
          "POST",
          "/api/evolution/events",
          fixtureBytes("seed_envelope.json").toString(),
        )
      ).status,
    ).toBe(401);
    const big = JSON.parse(fixtureBytes("seed_envelope.json").toString("utf8"));
    big.event.comment = "x".repeat(BODY_LIMIT);
    const response = await ada("POST", "/api/evolution/events", big);
    expect(response.status).toBe(413);
    expect(snapshotState(state)).toEqual(before);
  });

  it("is described in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths["/api/evolution/events"]).toHaveProperty("post");
    // The request body is the payload contract (three forms), the answer the ingest result.
    expect(JSON.stringify(doc.paths["/api/evolution/events"])).toContain("openclaw_appleseed.runtime_event");
    expect(JSON.stringify(doc.paths["/api/evolution/events"])).toContain("payload_sha256");
  });
});
