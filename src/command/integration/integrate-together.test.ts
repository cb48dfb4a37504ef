import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IntegrationTheater } from "../../../test/support/integration-theater.js";
import type { GateRequest, GateRunner } from "./gate-runner.js";
import { Integrator } from "./integrate.js";

// Several runs finishing at once in one theater: their orders are integrated side by side. A gate takes a while
// (a cell starts, commands run), and a merge is promoted only onto the main it was gated on.
let theater: IntegrationTheater;
beforeEach(async () => {
  theater = await IntegrationTheater.create();
});
afterEach(async () => {
  await theater.close();
});

/** Passes every command after a pause, and remembers how many gates ran at the same time at most. */
function slowGates(): { runner: GateRunner; mostAtOnce: () => number } {
  let running = 0;
  let most = 0;
  const runner: GateRunner = {
    async run(request: GateRequest) {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running -= 1;
      const results = request.commands.map((command) => ({
        command,
        exit: 0,
        stdout_tail: "",
        stderr_tail: "",
        timed_out: false,
      }));
      return { results, skipped: [] };
    },
  };
  return { runner, mostAtOnce: () => most };
}

describe("orders of one theater integrated at the same time", () => {
  it("are each merged once, none failed for main having moved, with one gate at a time", async () => {
    const ids = ["t1", "t2", "t3", "t4", "t5", "t6"];
    const worktrees = new Map<string, string>();
    for (const id of ids)
      worktrees.set(
        id,
        await theater.completedOrder(id, {
          files: { [`notes/${id}.md`]: `# ${id}\n` },
          acceptance: ["true"],
        }),
      );
    const gates = slowGates();
    const integrator = new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates: gates.runner,
      dependenciesIntegrated: () => true,
    });

    const results = await Promise.all(
      ids.map((orderId) =>
        integrator.integrate({ theaterId: "demo", orderId, worktreePath: worktrees.get(orderId) ?? "" }),
      ),
    );

    expect(results.map((r) => r.result)).toEqual(ids.map(() => "passed"));
    const merges = await theater.mergesOnMain();
    expect(merges).toHaveLength(ids.length);
    expect(new Set(results.map((r) => r.commit_sha))).toEqual(new Set(merges));
    for (const id of ids) {
      expect((await theater.store.getOrder(id))?.integration_state).toBe("INTEGRATED");
      expect(await theater.eventTypes(id)).not.toContain("INTEGRATION_FAILED");
    }
    expect(gates.mostAtOnce()).toBe(1);
  }, 60_000);
});
