import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedEvent, SqliteEventStore } from "../../src/ledger/index.js";
import { openHostDb, UserStore } from "../../src/warden/index.js";
import { type CliProcess, spawnIronclaw } from "../support/cli-process.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { cellsSettingForServe } from "../support/serve-process.js";
import { api } from "../support/warden-harness.js";

// `ironclaw command serve` keeps `ironclaw sentinel` beside it as a child process; stopping the warden's duty officer
// must be noticed by that other process, escalated and repaired through the warden, all of it in the ledger.

const PATROL_S = 2;
const AUDIT_S = 5;

let home = "";
let model: ModelServer;
let token = "";
let serve: CliProcess | undefined;

beforeAll(async () => {
  model = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-sentinel-"));
  await writeFile(
    join(home, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${model.url}"\napi_key_env = "TEST_MODEL_KEY"\n\n` +
      '[new_brains]\nprovider = "local"\nmodel = "test-model"\n\n' +
      `[command]\nworkers = 0\npatrol_seconds = ${PATROL_S}\naudit_seconds = ${AUDIT_S}\n` +
      (await cellsSettingForServe()).replace("[cells]", "[cells]\npool_size = 0"),
  );
  const db = openHostDb(home);
  token = (await new UserStore(db).add("root", { admin: true })).token;
  db.close();
}, 60_000);
afterAll(async () => {
  serve?.child.kill("SIGKILL");
  await model?.close();
  await rm(home, { recursive: true, force: true });
});

async function waitForEvent(
  store: SqliteEventStore,
  found: (event: RecordedEvent) => boolean,
  timeoutMs: number,
): Promise<RecordedEvent> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const event = (await store.read({})).find(found);
    if (event) return event;
  }
  throw new Error(`no such event within ${timeoutMs} ms`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the sentinel process", () => {
  it("raises CRITICAL within two audit periods of the duty officer's stop, and the restart shows in the ledger", async () => {
    serve = spawnIronclaw(["command", "serve", "--port", "0"], {
      IRONCLAW_HOME: home,
      TEST_MODEL_KEY: "k",
    });
    const url = (await serve.waitFor(/serving at (http:\/\/\S+)/, 60_000))[1] as string;
    const sentinelPid = Number((await serve.waitFor(/sentinel \(pid (\d+)\)/, 60_000))[1]);
    expect(sentinelPid).not.toBe(serve.pid);
    const store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
    try {
      const call = api(url, token);
      await waitForEvent(store, (e) => e.type === "PATROL_TICK", 30_000);

      const stopped = await call("POST", "/api/patrol/stop");
      expect(stopped.status).toBe(200);
      const stoppedAt = Date.now();
      const dutyOfficer = ((await stopped.json()) as { data: { duty_officer: string } }).data.duty_officer;

      const raised = await waitForEvent(
        store,
        (e) => e.type === "ESCALATION_RAISED" && e.payload.check === "duty_officer_dead",
        6 * AUDIT_S * 1000,
      );
      const latencyMs = Date.parse(raised.ts) - stoppedAt;
      console.info(`sentinel detection latency: ${latencyMs} ms (patrol ${PATROL_S} s, audit ${AUDIT_S} s)`);
      expect(latencyMs).toBeLessThanOrEqual(2 * AUDIT_S * 1000);
      expect(raised.payload).toMatchObject({ severity: "CRITICAL", duty_officer: dutyOfficer });

      const started = await waitForEvent(store, (e) => e.type === "RECOVERY_STARTED", 10_000);
      expect(started.payload).toMatchObject({ subject: "duty_officer", duty_officer: dutyOfficer });
      const completed = await waitForEvent(store, (e) => e.type === "RECOVERY_COMPLETED", 4 * AUDIT_S * 1000);
      expect(completed.position).toBeGreaterThan(started.position);
      const ticksAfter = (await store.read({ after: started.position, types: ["PATROL_TICK"] })).filter(
        (e) => e.payload.duty_officer === dutyOfficer,
      );
      expect(ticksAfter.length).toBeGreaterThan(0);
      // One incident, one escalation, however many audits saw it.
      expect((await store.read({ types: ["ESCALATION_RAISED"] })).length).toBe(1);

      // A sentinel killed outright is replaced by the warden.
      process.kill(sentinelPid, "SIGKILL");
      const next = await serve.waitFor(new RegExp(`sentinel \\(pid (?!${sentinelPid}\\))(\\d+)\\)`), 30_000);
      const nextPid = Number(next[1]);
      expect(alive(nextPid)).toBe(true);

      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
      expect(alive(nextPid)).toBe(false);
    } finally {
      await store.close();
    }
  }, 120_000);
});
