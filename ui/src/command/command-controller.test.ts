import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApiClient } from "../api/api-client.js";
import { order, startCommandServer } from "../testing/command-server.js";
import { createCommandController } from "./command-controller.js";
import { createOversightController, HEALTH_WINDOW } from "./oversight-controller.js";

// The command view's controllers against a real HTTP server on a real socket (the fake warden's routes in
// their wire formats). Waits poll what the user would see, with a generous ceiling, never a fixed sleep.
const until = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 5 });

let server: Awaited<ReturnType<typeof startCommandServer>>;
beforeEach(async () => {
  server = await startCommandServer();
});
afterEach(() => server.close());

describe("a run's graph", () => {
  it("opens with the orders' dependencies and follows them to INTEGRATED from the ledger's events", async () => {
    const api = createApiClient(fetch, server.base);
    const command = createCommandController(api, { base: server.base, minDelayMs: 10 });
    server.addRun("run-1", "demo", "Two notes", [
      { order_id: "o1", status: "QUEUED", depends_on: [] },
      { order_id: "o2", status: "QUEUED", depends_on: ["o1"] },
    ]);
    for (const id of ["o1", "o2"]) server.setOrder(order(id));
    await command.dispatch({ type: "start" });
    expect(command.state.runs.map((r) => r.run_id)).toEqual(["run-1"]);
    await command.dispatch({ type: "open", id: "run-1" });
    expect(command.open.run?.orders[1]?.depends_on).toEqual(["o1"]);
    await until(() => expect(command.open.live.state).toBe("online"));

    await command.dispatch({ type: "select", orderId: "o1" });
    server.setOrder(
      order("o1", { status: "COMPLETED", integration_state: "INTEGRATED", commit_sha: "a".repeat(40) }),
    );
    server.changeRun("run-1", {
      orders: [
        { order_id: "o1", status: "COMPLETED", depends_on: [] },
        { order_id: "o2", status: "QUEUED", depends_on: ["o1"] },
      ],
    });
    server.push("run-1", "INTEGRATED", 1, { order_id: "o1", payload: { commit_sha: "a".repeat(40) } });
    await until(() => expect(command.open.orders.o1?.integration_state).toBe("INTEGRATED"));
    expect(command.open.run?.orders[0]?.status).toBe("COMPLETED");
    expect(command.state.selected).toBe("o1");
    // Another run clears the selection: its orders are not the selected one's.
    server.addRun("run-2", "demo", "Other");
    await command.dispatch({ type: "open", id: "run-2" });
    expect(command.state.selected).toBeNull();
    command.dispose();
  });
});

describe("oversight", () => {
  it("reads the last patrol tick, the services still degraded and the sentinel's last act from the ledger", async () => {
    const oversight = createOversightController(createApiClient(fetch, server.base));
    server.pushHost("SERVICE_DEGRADED", { service: "disk", reason: "3 MB free" });
    server.pushHost("SERVICE_DEGRADED", { service: "provider:local", reason: "refused" });
    server.pushHost("SERVICE_RECOVERED", { service: "provider:local" });
    server.pushHost("PATROL_TICK", {}, "2026-01-01T00:00:00.000Z");
    server.pushHost("PATROL_TICK", {}, "2026-01-01T00:00:30.000Z");
    const officer = { subject: "duty_officer" };
    server.pushHost("ESCALATION_RAISED", { ...officer, severity: "CRITICAL", reason: "no patrol for 95 s" });
    server.pushHost("ESCALATION_RAISED", { severity: "HIGH", reason: "an order's own", subject: "order" });
    await oversight.load();
    expect(oversight.state.health?.lastTickAt).toBe("2026-01-01T00:00:30.000Z");
    expect(oversight.state.health?.degraded.map((d) => [d.service, d.reason])).toEqual([
      ["disk", "3 MB free"],
    ]);
    expect(oversight.state.health?.sentinel?.what).toBe("CRITICAL no patrol for 95 s");
    server.pushHost("RECOVERY_STARTED", { ...officer, reason: "no patrol for 95 s" });
    server.pushHost("RECOVERY_STARTED", { subject: "order", reason: "stalled" });
    await oversight.load();
    expect(oversight.state.health?.sentinel?.what).toBe("restarting the duty officer");
    // Without the escalation routes the panel says so instead of failing.
    expect(oversight.state.escalationsError).toMatch(/^Escalations are unavailable: /);
  });

  it("reads only the last HEALTH_WINDOW positions, over as many pages as that takes", async () => {
    const oversight = createOversightController(createApiClient(fetch, server.base));
    server.pushHost("PATROL_TICK", {}, "2026-01-01T00:00:00.000Z");
    for (let i = 0; i < HEALTH_WINDOW; i += 1) server.pushHost("SERVICE_DEGRADED", { service: `s${i % 3}` });
    await oversight.load();
    expect(oversight.state.health?.lastTickAt).toBeNull();
    expect(oversight.state.health?.degraded).toHaveLength(3);
    expect(server.count("GET /api/ledger/events")).toBe(1 + HEALTH_WINDOW / 1000);
  });

  it("acknowledges an open escalation, which then leaves the list; an unknown one is said to have failed", async () => {
    const about = {
      raised_at: "2026-01-01T00:00:00.000Z",
      route: "owner",
      theater_id: "demo",
      run_id: "run-1",
    };
    server.oversight.escalations = [
      {
        ...about,
        escalation_id: "esc-1",
        severity: "HIGH",
        reason: "order stalled",
        order_id: "o1",
        acked: null,
      },
      {
        ...about,
        escalation_id: "esc-2",
        severity: "LOW",
        reason: "dirty worktree",
        order_id: null,
        acked: null,
      },
    ];
    const oversight = createOversightController(createApiClient(fetch, server.base));
    await oversight.load();
    expect(oversight.state.escalations.map((e) => e.escalation_id)).toEqual(["esc-1", "esc-2"]);
    await oversight.ack("esc-1");
    expect(oversight.state.escalations.map((e) => e.escalation_id)).toEqual(["esc-2"]);
    expect(server.count("POST /api/escalations/esc-1/ack")).toBe(1);
    await oversight.ack("esc-9");
    expect(oversight.state.escalationsError).toMatch(/^Escalation esc-9 was not acknowledged: /);
  });

  it("says health is unavailable when the ledger refuses an unscoped read (not an admin)", async () => {
    server.refuse("GET /api/ledger/events", {
      status: 403,
      code: "forbidden",
      message: "query.run_id: required",
    });
    const oversight = createOversightController(createApiClient(fetch, server.base));
    await oversight.load();
    expect(oversight.state.health).toBeNull();
    expect(oversight.state.healthError).toBe("Health is unavailable: query.run_id: required");
  });
});
