import { describe, expect, it } from "vitest";
import type { CellStatusList } from "../api/endpoints.js";
import { fakeApi, ok } from "../testing/fake-api.js";
import { createAdminController } from "./admin-controller.js";

type Row = CellStatusList["cells"][number];
const crash = {
  at: "2026-03-01T10:00:00.000Z",
  code: 134,
  signal: null,
  reason: "it ran out of memory (exit code 134: FATAL ERROR: Reached heap limit)",
  stderr: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
  crashes: 4,
};
const row = (over: Partial<Row>): Row => ({
  user: "dora",
  state: "running",
  backend: "bwrap",
  uptime_ms: 1000,
  memory_bytes: 1,
  restarts: 0,
  last_crash: null,
  retry_at: null,
  ...over,
});

function admin(cells: Row[], restarted: Row) {
  const list = { backend: "bwrap", isolated: true, cells };
  return fakeApi({
    "GET /api/users": () => ok([]),
    "GET /api/admin/cells": () => ok(list),
    "GET /api/admin/providers": () => ok({ providers: [] }),
    "POST /api/admin/cells/:user/restart": () => {
      list.cells = [restarted];
      return ok(restarted);
    },
  });
}

describe("restarting a cell from the admin screen", () => {
  it("restarts a cell held in a crash loop, says it runs again and reloads the table", async () => {
    const held = row({ state: "crash_loop", last_crash: crash, retry_at: "2026-03-01T10:05:00.000Z" });
    const { client, calls } = admin([held], row({}));
    const controller = createAdminController(client);
    await controller.dispatch({ type: "start" });
    expect(controller.state.cells?.cells[0]).toMatchObject({ state: "crash_loop", last_crash: crash });

    await controller.dispatch({ type: "restart-cell", user: "dora" });
    expect(calls.find((c) => c.key === "POST /api/admin/cells/:user/restart")?.args).toEqual({
      params: { user: "dora" },
    });
    expect(controller.state.message).toEqual({ level: "info", text: "The cell of dora is running again." });
    expect(controller.state.cells?.cells[0]).toMatchObject({ state: "running", last_crash: null });
    controller.dispose();
  });

  it("says why when the cell does not start again", async () => {
    const held = row({ state: "crash_loop", last_crash: crash });
    const { client } = admin([held], row({ state: "stopped", last_crash: crash, uptime_ms: null }));
    const controller = createAdminController(client);
    await controller.dispatch({ type: "restart-cell", user: "dora" });
    expect(controller.state.message).toEqual({
      level: "error",
      text: `The cell of dora did not start: ${crash.reason}.`,
    });
    controller.dispose();
  });
});
