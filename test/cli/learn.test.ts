import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { appendSyntheticRun } from "../support/learning-history.js";
import { runIronclawInProcess } from "./run-cli.js";

// ironclaw learn on the ledger under IRONCLAW_HOME, as the warden would open it.

let root: string;
let home: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-cli-learn-"));
  home = join(root, "home");
  await runIronclawInProcess(["theater", "list"], { env: { IRONCLAW_HOME: home } });
  const store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
  await appendSyntheticRun(store, [
    { type: "draft", profile: "writer", outcome: "completed", latencyMs: 1200 },
    { type: "draft", profile: "terse", outcome: "failed" },
  ]);
  await store.close();
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const cli = (...args: string[]) => runIronclawInProcess(args, { env: { IRONCLAW_HOME: home } });

it("ticks, shows, pins and rolls back the routing policy, and names a bad version", async () => {
  const tick = await cli("learn", "tick", "--json");
  expect(tick.stderr).toBe("");
  expect(JSON.parse(tick.stdout)).toMatchObject({
    policy_version: 1,
    changed: true,
    recommendations: [{ task_type: "draft", profile: "writer" }],
  });
  const shown = await cli("learn", "policy");
  expect(shown.stdout).toContain("policy v1 (active)");
  expect(shown.stdout).toContain("changed from v-: draft: - → writer");

  expect((await cli("learn", "pin", "1")).stdout).toContain("policy v1 (active, pinned)");
  const listed = await cli("learn", "versions");
  expect(listed.stdout).toMatch(/^\* v1 .*1 routes, 1 changed {2}\(pinned\)$/m);

  const bad = await cli("learn", "rollback", "first");
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain("version: must be a whole number from 1");
  const unknown = await cli("learn", "rollback", "4");
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain("policy version 4 not found");
});
