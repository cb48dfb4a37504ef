import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// [command] enabled = false: the warden opens no ledger and says so on command's routes.

let h: WardenHarness;
beforeAll(async () => {
  h = await startWardenHarness({
    configure: (c) => ({
      ...c,
      cells: { ...c.cells, pool_size: 0 },
      command: { ...c.command, enabled: false },
    }),
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("a warden with command off", () => {
  it("opens no ledger and answers command's routes with 503 naming the setting", async () => {
    expect(existsSync(join(h.home, "ledger.db"))).toBe(false);
    const alice = api(h.url, await h.addUser("alice"));
    const runs = await alice("GET", "/api/runs");
    expect(runs.status).toBe(503);
    expect(((await runs.json()) as { error: { message: string } }).error.message).toMatch(
      /\[command\] enabled/,
    );
    expect((await alice("GET", "/api/ledger/events?run_id=x")).status).toBe(404);
  });
});
