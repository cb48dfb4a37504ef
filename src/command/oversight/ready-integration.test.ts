import { afterEach, beforeEach, expect, it } from "vitest";
import { IntegrationTheater, passingGates } from "../../../test/support/integration-theater.js";
import { ManualClock } from "../../../test/support/manual-clock.js";
import { Integrator } from "../integration/integrate.js";
import { ActiveOrders } from "./active-orders.js";
import { Observer } from "./observer.js";
import { DEFAULT_THRESHOLDS } from "./oversight-options.js";

let theater: IntegrationTheater;
beforeEach(async () => {
  theater = await IntegrationTheater.create();
});
afterEach(async () => {
  await theater.close();
});

it("an order the observer declared INTEGRATION_READY is still integrated, once", async () => {
  const record = {
    theater_id: "demo",
    owner: theater.owner,
    repo_path: theater.repo,
    created_at: "2026-11-27T12:00:00Z",
  };
  const observer = new Observer({
    store: theater.store,
    theaters: { get: async () => record },
    orders: new ActiveOrders(theater.store),
    clock: new ManualClock(Date.now()),
    thresholds: DEFAULT_THRESHOLDS,
    garrisonId: "local",
  });
  const worktree = await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
  expect((await observer.patrolTheater("demo")).events_emitted).toBe(1);
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("READY");

  const integrator = new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: passingGates,
    dependenciesIntegrated: () => true,
  });
  const result = await integrator.integrate({ theaterId: "demo", orderId: "o1", worktreePath: worktree });
  expect(result.result).toBe("passed");
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("INTEGRATED");
  // Integrated, the order is no longer watched: a later patrol finds and raises nothing.
  expect(await observer.patrolTheater("demo")).toMatchObject({ findings: [], events_emitted: 0 });
  expect((await theater.eventTypes("o1")).filter((t) => t === "INTEGRATED")).toHaveLength(1);
});
