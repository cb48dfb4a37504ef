import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../ledger/index.js";
import type { Planner } from "./co/co-services.js";
import { CommandService } from "./command-service.js";
import { SqliteJobQueue } from "./queue/sqlite-queue.js";

// Nothing here plans: a planner that is asked fails the test.
const planner: Planner = {
  plan: async () => {
    throw new Error("no planning in these tests");
  },
};

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-command-service-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("CommandService", () => {
  it("opens the embedded ledger and queue under IRONCLAW_HOME, with theaters beside them", async () => {
    const service = await CommandService.open({ home, planner });
    try {
      expect(existsSync(join(home, "ledger.db"))).toBe(true);
      expect(existsSync(join(home, "queue.db"))).toBe(true);
      expect(service.theaters.theatersDir).toBe(join(home, "theaters"));
      // Without cells nothing runs or gates orders here.
      expect(service.workers).toBeUndefined();
      expect(service.integrator).toBeUndefined();
      const theater = await service.theaters.add({ theaterId: "demo", owner: "alice" });
      const runId = await service.co.createRun({
        userId: "alice",
        theaterId: "demo",
        objective: "Summarize",
      });
      expect((await service.store.getRun(runId))?.theater_id).toBe(theater.theater_id);
    } finally {
      await service.close();
    }
  });

  it("closes the parts it was given, once however often it is closed", async () => {
    const store = await SqliteEventStore.open({ path: join(home, "elsewhere.db") });
    const queue = await SqliteJobQueue.open(join(home, "elsewhere-queue.db"));
    const service = await CommandService.open({ home, planner, store, queue });
    expect(service.store).toBe(store);
    expect(existsSync(join(home, "ledger.db"))).toBe(false);
    await Promise.all([service.close(), service.close()]);
    await expect(store.head()).rejects.toThrow();
    await expect(queue.counts()).rejects.toThrow();
  });
});
