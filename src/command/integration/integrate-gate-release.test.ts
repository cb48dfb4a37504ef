import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapUsable, IntegrationTheater } from "../../../test/support/integration-theater.js";
import { createBwrapBackend, defaultRuntime } from "../../cells/index.js";
import { copyTreeIn } from "../cells/index.js";
import { CellGateRunner } from "./gate-runner.js";
import { Integrator } from "./integrate.js";

// Stopping the gate's cell is off the order's path: integration records its merge once the gate has answered,
// while the cell is still stopping, and removes the scratch checkout only once the cell is gone.
let theater: IntegrationTheater;

beforeAll(async () => {
  theater = await IntegrationTheater.create();
});
afterAll(async () => {
  await theater.close();
});

describe.skipIf(!bwrapUsable)("a gate cell stopping after its answer", () => {
  it("lets the merge land before the cell has stopped, and keeps the scratch checkout until it has", async () => {
    const backend = createBwrapBackend({
      runtime: defaultRuntime(),
      brainImages: false,
      onWarning: () => {},
    });
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let treeWhileStopping: string | undefined;
    const state = { integrated: false, integratedBeforeStopped: false, treeKeptWhileStopping: false };
    const runner = new CellGateRunner({
      cells: {
        start: (spec) =>
          backend.start({
            userId: spec.userId,
            userDir: join(theater.home, "cells", `${spec.orderId}-release`),
            handler: "gate",
            runAs: { uid: 61_412, gid: 61_412 },
          }),
        async release(cell) {
          // Held until the test lets go, or 20 s where integration waits for it (which is what must not happen).
          await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 20_000))]);
          state.integratedBeforeStopped = state.integrated;
          state.treeKeptWhileStopping = treeWhileStopping !== undefined && existsSync(treeWhileStopping);
          await cell.stop({ timeoutMs: 5_000 });
        },
      },
      copyTreeIn,
    });
    const gates = {
      run: (request: Parameters<CellGateRunner["run"]>[0]) => {
        treeWhileStopping = request.treeDir;
        return runner.run(request);
      },
    };
    const integrator = new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates,
      dependenciesIntegrated: () => true,
      commandTimeoutMs: 60_000,
    });
    const wt = await theater.completedOrder("stopping", {
      files: { "notes/s.txt": "s\n" },
      acceptance: ["test -s notes/s.txt"],
    });
    const result = await integrator.integrate({ theaterId: "demo", orderId: "stopping", worktreePath: wt });
    state.integrated = result.result === "passed";
    expect(state.integrated).toBe(true);
    expect(await theater.main()).toBe(result.commit_sha);
    letGo();
    await integrator.settled();
    expect(state.integratedBeforeStopped).toBe(true);
    expect(state.treeKeptWhileStopping).toBe(true);
    expect(existsSync(treeWhileStopping as string)).toBe(false);
  }, 120_000);
});
