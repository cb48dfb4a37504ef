import { afterEach, describe, expect, it } from "vitest";
import { type CoHarness, openCo } from "../../test/support/co-harness.js";
import { RunDriver } from "./run-driver.js";

const PLAN = { orders: [{ key: "A", type: "research", objective: "Collect the facts" }] };

let h: CoHarness;
let driver: RunDriver | undefined;
afterEach(async () => {
  await driver?.close();
  await h.close();
});

describe("a host starting again", () => {
  it("takes up every run the ledger holds OPEN, plans one left unplanned, and leaves concluded runs alone", async () => {
    h = await openCo();
    h.planner.reply = PLAN;
    const open = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Summarize the repo" });
    const cancelled = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Never mind" });
    await h.co.cancel(cancelled, "cancelled by u_1");

    driver = new RunDriver(h.co, h.store);
    expect(await driver.resumeOpen()).toEqual([open]);
    // Planned and dispatched by the driver that took it up; the order then waits for a worker.
    await expect.poll(async () => (await h.store.getRun(open))?.orders.length, { timeout: 10_000 }).toBe(1);
    expect(h.planner.requests.map((r) => r.runId)).toEqual([open]);
    expect((await h.store.getRun(cancelled))?.status).toBe("CANCELLED");
    expect((await h.store.getRun(open))?.status).toBe("OPEN");
  });
});
