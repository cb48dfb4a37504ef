import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IntegrationTheater, passingGate } from "../../../test/support/integration-theater.js";
import { Integrator } from "../../command/index.js";
import type { ProjectedFeedbackRecord } from "../../contracts/index.js";
import { createLogger } from "../../core/index.js";
import { EvolutionFeed } from "./evolution-feed.js";
import { RunFeed } from "./run-feed.js";

// The run follower on its own, over a real SQLite ledger whose order is merged by the real integrator, and the
// real evolution state under the theater's home: a run's end becomes session_feedback, once across restarts.

let theater: IntegrationTheater;
let feeds: RunFeed[];
beforeEach(async () => {
  theater = await IntegrationTheater.create();
  feeds = [];
});
afterEach(async () => {
  for (const feed of feeds) await feed.close();
  await theater.close();
});

function follow(): EvolutionFeed {
  const logger = createLogger("run-feed-test", { level: "silent" });
  const feed = new EvolutionFeed({ home: theater.home, logger });
  const runs = new RunFeed({ store: theater.store, feed, logger, pollIntervalMs: 20 });
  feeds.push(runs);
  runs.start();
  return feed;
}

/** The projected record of a run, however long the follower takes to write it. */
async function recordOf(feed: EvolutionFeed, runId: string): Promise<ProjectedFeedbackRecord> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = feed
      .state()
      .projected()
      .find((r) => r.session_id === runId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no feedback recorded for ${runId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const runEvent = (type: "RUN_CREATED" | "RUN_COMPLETED" | "RUN_CANCELLED", runId: string, payload = {}) => ({
  type,
  garrison_id: "local",
  theater_id: theater.theaterId,
  run_id: runId,
  order_id: null,
  unit_id: null,
  payload,
});

describe("RunFeed", () => {
  it("records each run's start and outcome (partial by the share of orders merged), once across restarts", async () => {
    // run_1: one order merged, one not, then RUN_FAILED.
    const worktreePath = await theater.completedOrder("o1", { files: { "notes/o1.txt": "o1\n" } });
    await theater.completedOrder("o2", { files: { "notes/o2.txt": "o2\n" } });
    const integrator = new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates: { run: async (request) => passingGate(request) },
      dependenciesIntegrated: () => true,
    });
    expect((await integrator.integrate({ theaterId: "demo", orderId: "o1", worktreePath })).result).toBe(
      "passed",
    );
    await theater.store.append(theater.event("RUN_FAILED", null, { summary: "o2 was never merged" }));
    // run_2: ada's, completed.
    await theater.store.append(
      runEvent("RUN_CREATED", "run_2", { objective: "Write the changelog", user_id: "ada" }),
    );
    await theater.store.append(runEvent("RUN_COMPLETED", "run_2", { summary: "Done." }));

    const first = follow();
    const failed = await recordOf(first, "run_1");
    expect(failed).toMatchObject({
      task: "Integrate some orders",
      status: "partial",
      score: 0.5,
      comment: "o2 was never merged",
      steps: ["order o1 COMPLETED merged", "order o2 COMPLETED"],
      metadata: { channel: "command", run_id: "run_1", outcome: "RUN_FAILED", user_id: null },
    });
    const done = await recordOf(first, "run_2");
    expect(done).toMatchObject({
      task: "Write the changelog",
      status: "success",
      score: 1,
      comment: "Done.",
    });
    const store = first.state();
    expect(store.sessionOwner("run_2")).toBe("ada");
    expect(store.sessionOwner("run_1")).toBeNull();
    const kinds = store
      .envelopes()
      .map((line) => `${line.envelope.event.session_id} ${line.envelope.event.event_kind}`);
    expect(kinds.sort()).toEqual([
      "run_1 session_feedback",
      "run_1 session_started",
      "run_2 session_feedback",
      "run_2 session_started",
    ]);
    await feeds[0]?.close();

    // A restart reads the ledger from its start again; a run cancelled after it is recorded once it has caught up.
    const second = follow();
    await theater.store.append(
      runEvent("RUN_CREATED", "run_3", { objective: "Try something", user_id: "ada" }),
    );
    await theater.store.append(runEvent("RUN_CANCELLED", "run_3", { reason: "changed my mind" }));
    expect(await recordOf(second, "run_3")).toMatchObject({ status: "cancelled", score: 0 });
    expect(second.state().envelopes()).toHaveLength(6);
    expect(second.state().projected()).toHaveLength(3);
  }, 30_000);
});
