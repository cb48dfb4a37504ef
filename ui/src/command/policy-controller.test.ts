import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiClient } from "../api/api-client.js";
import type { PolicyView } from "../api/command-endpoints.js";
import { startCommandServer } from "../testing/command-server.js";
import { createPolicyController } from "./policy-controller.js";

let server: Awaited<ReturnType<typeof startCommandServer>>;
beforeEach(async () => {
  server = await startCommandServer();
});
afterEach(() => server.close());

const stats = {
  profile: "coder",
  task_type: "implement",
  orders: 2,
  succeeded: 2,
  success_rate: 1,
  retries: 0,
};
function policy(version: number, profile: string, from: string | null): NonNullable<PolicyView["policy"]> {
  return {
    ...{ version, created_at: "2026-01-01T00:00:00.000Z", outcomes: [], corrections: 0 },
    routes: [
      {
        ...{ task_type: "implement", profile: { name: profile, model: "m" }, score: 0.75, reason: "best" },
        stats: { ...stats, latency_ms: { p50: 1, p90: 1, p99: 1, max: 1 } },
      },
    ],
    derived_from: {
      after_position: 0,
      through_position: 9,
      events: 9,
      first_event_id: null,
      last_event_id: null,
    },
    diff: {
      previous_version: version > 1 ? version - 1 : null,
      changes: [{ task_type: "implement", from, to: profile }],
    },
  } as NonNullable<PolicyView["policy"]>;
}

describe("the routing policy", () => {
  it("shows the active version and its diff, any other version on request, and rolls back and pins", async () => {
    server.learn(policy(1, "coder", null));
    server.learn(policy(2, "reviewer", "coder"));
    const panel = createPolicyController(createApiClient(fetch, server.base));
    await panel.dispatch({ type: "load" });
    expect(panel.state.versions?.versions.map((v) => [v.version, v.active])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(panel.state.shown?.policy?.diff.changes).toEqual([
      { task_type: "implement", from: "coder", to: "reviewer" },
    ]);
    await panel.dispatch({ type: "show", version: 1 });
    expect(panel.state.shown?.policy?.version).toBe(1);

    await panel.dispatch({ type: "rollback", version: 1 });
    expect(server.bodiesOf("POST /api/learn/policy/rollback")).toEqual([{ version: 1 }]);
    expect(panel.state.message?.text).toBe("Version 1 is active again.");
    expect(panel.state.versions?.active_version).toBe(1);
    await panel.dispatch({ type: "pin", version: 1 });
    expect(panel.state.versions?.pinned).toBe(true);
  });

  it("says why a move was refused (not an admin) and keeps what it showed", async () => {
    server.learn(policy(1, "coder", null));
    server.refuse("POST /api/learn/policy/pin", { status: 403, code: "forbidden", message: "admins only" });
    const panel = createPolicyController(createApiClient(fetch, server.base));
    await panel.dispatch({ type: "load" });
    await panel.dispatch({ type: "pin", version: 1 });
    expect(panel.state.message).toEqual({ level: "error", text: "The policy could not pin: admins only" });
    expect(panel.state.versions?.pinned).toBe(false);
    expect(panel.state.busy).toBe(false);
  });
});
