import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRating, appendSyntheticRun } from "../../../test/support/learning-history.js";
import { SqliteEventStore } from "../../ledger/index.js";
import { Learning } from "./learning-service.js";

let dir: string;
let store: SqliteEventStore;
let learning: Learning;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-learning-"));
  store = await SqliteEventStore.open({ path: join(dir, "ledger.db") });
  learning = new Learning({ store, now: () => "2026-03-02T00:00:00.000Z" });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const policyEvents = async () =>
  (await store.read({ types: ["POLICY_UPDATED"] })).map((e) => e.payload as Record<string, unknown>);

/** fast: 3 of 4 drafts succeed (one after a retry); slow: 2 of 2, but one run got a thumbs-down. */
async function history() {
  await appendSyntheticRun(store, [
    { type: "draft", profile: "fast", outcome: "completed", latencyMs: 1000 },
    { type: "draft", profile: "fast", outcome: "completed", latencyMs: 4000, retries: 1 },
    { type: "draft", profile: "fast", outcome: "failed" },
    { type: "research", profile: "fast", outcome: "completed", latencyMs: 3000 },
  ]);
  await appendSyntheticRun(store, [
    { type: "draft", profile: "fast", outcome: "completed", latencyMs: 2000 },
  ]);
  const corrected = await appendSyntheticRun(store, [
    { type: "draft", profile: "slow", outcome: "completed", latencyMs: 5000 },
  ]);
  await appendRating(store, corrected.runId, "down");
  await appendSyntheticRun(store, [
    { type: "draft", profile: "slow", outcome: "completed", latencyMs: 7000 },
  ]);
}

describe("a learning tick", () => {
  it("gives the exact rates, retries, latency percentiles and corrections per profile and task type", async () => {
    await history();
    const tick = await learning.tick();
    expect(tick).toMatchObject({ policy_version: 1, changed: true, pinned: false, corrections: 1 });
    const row = (type: string, profile: string) =>
      tick.outcomes.find((r) => r.task_type === type && r.profile === profile);
    expect(row("draft", "fast")).toMatchObject({
      orders: 4,
      succeeded: 3,
      success_rate: 0.75,
      retries: 1,
      corrections: 0,
      latency_ms: { samples: 3, p50: 2000, p90: 4000, p95: 4000, p99: 4000, max: 4000 },
    });
    expect(row("draft", "slow")).toMatchObject({ orders: 2, succeeded: 2, success_rate: 1, corrections: 1 });
    expect(row("research", "fast")).toMatchObject({ orders: 1, succeeded: 1, success_rate: 1 });
    // fast (3+1)/(4+2) = 0.6667 beats slow (2−1+1)/(2+2) = 0.5: the thumbs-down costs slow the route.
    expect(tick.recommendations.map((r) => [r.task_type, r.profile])).toEqual([
      ["draft", "fast"],
      ["research", "fast"],
    ]);
    const [stored] = await policyEvents();
    expect(stored).toMatchObject({ action: "learned", policy_version: 1 });
    const doc = (await learning.policy()).policy;
    expect(doc?.derived_from).toMatchObject({ after_position: 0, events: tick.events_considered });
    expect(doc?.derived_from.through_position).toBe((await store.head()) - 1);
    expect(doc?.diff).toEqual({
      previous_version: null,
      changes: [
        { task_type: "draft", from: null, to: "fast" },
        { task_type: "research", from: null, to: "fast" },
      ],
    });
  });

  it("appends nothing when the routing did not change", async () => {
    await history();
    await learning.tick();
    await appendSyntheticRun(store, [
      { type: "draft", profile: "fast", outcome: "completed", latencyMs: 10 },
    ]);
    const again = await learning.tick();
    expect(again).toMatchObject({ policy_version: 1, changed: false });
    expect(await policyEvents()).toHaveLength(1);
  });
});

describe("a person", () => {
  it("pins a version that ticks then leave alone, unpins it, and rolls back to it", async () => {
    await history();
    await learning.tick();
    expect((await learning.pin(1, "root")).pinned).toBe(true);
    // slow now has five more clean drafts: learning would move drafts to it.
    for (let i = 0; i < 5; i++)
      await appendSyntheticRun(store, [
        { type: "draft", profile: "slow", outcome: "completed", latencyMs: 100 },
      ]);
    const held = await learning.tick();
    expect(held).toMatchObject({ policy_version: 1, changed: false, pinned: true });
    expect((await learning.profileFor("draft"))?.name).toBe("fast");

    await learning.unpin("root");
    const moved = await learning.tick();
    expect(moved).toMatchObject({ policy_version: 2, changed: true });
    expect((await learning.policy(2)).policy?.diff).toEqual({
      previous_version: 1,
      changes: [{ task_type: "draft", from: "fast", to: "slow" }],
    });
    expect((await learning.profileFor("draft"))?.name).toBe("slow");

    const back = await learning.rollback(1, "root");
    expect(back).toMatchObject({ active_version: 1, pinned: false });
    expect((await learning.profileFor("draft"))?.name).toBe("fast");
    expect((await learning.versions()).versions.map((v) => [v.version, v.active, v.changes])).toEqual([
      [1, true, 2],
      [2, false, 1],
    ]);
    expect((await policyEvents()).map((p) => [p.action, p.policy_version, p.by])).toEqual([
      ["learned", 1, undefined],
      ["pinned", 1, "root"],
      ["unpinned", 1, "root"],
      ["learned", 2, undefined],
      ["rolled_back", 1, "root"],
    ]);
  });

  it("is refused a version that does not exist, a second pin, and a rollback to the active version", async () => {
    await history();
    await learning.tick();
    await expect(learning.pin(7, "root")).rejects.toThrow(/policy version 7 not found/);
    await expect(learning.rollback(1, "root")).rejects.toThrow(/already the active one/);
    await learning.pin(1, "root");
    await expect(learning.pin(1, "root")).rejects.toThrow(/already pinned/);
    await expect(learning.unpin("root")).resolves.toMatchObject({ pinned: false });
    await expect(learning.unpin("root")).rejects.toThrow(/no policy version is pinned/);
  });
});
