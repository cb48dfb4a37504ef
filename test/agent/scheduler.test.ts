import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AgentRuntime,
  type CronScheduler,
  createRuntimeScheduler,
  type JobNotification,
  JobStore,
} from "../../src/agent/index.js";
import { createLogger } from "../../src/core/index.js";
import { ManualClock } from "../support/manual-clock.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { createTestBrain, type TestBrain } from "../support/test-brain.js";
import { WordHashEmbedder } from "../support/word-hash-embedder.js";

const silent = createLogger("test", { level: "silent" });
const SECOND = 1_000;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let server: ModelServer;
let brain: TestBrain;
let runtime: AgentRuntime;
const schedulers: CronScheduler[] = [];

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  brain = await createTestBrain({ baseUrl: server.url });
  runtime = await AgentRuntime.open(brain.root, {
    embedder: new WordHashEmbedder(),
    workspace: brain.workspace,
    logger: silent,
    env: {},
  });
});
afterEach(async () => {
  for (const s of schedulers.splice(0)) await s.stop();
  await runtime.close();
  brain.remove();
});

function jobs(text: string): void {
  writeFileSync(join(brain.root, "cron/jobs.toml"), text);
}

const BRIEF = `[[jobs]]
id = "brief"
schedule = "0 7 * * *"
prompt = "Write the morning brief."
`;

function scheduler(clock: ManualClock, options: { watch?: boolean } = {}) {
  const s = createRuntimeScheduler(runtime, {
    clock,
    watch: options.watch ?? false,
    debounceMs: 50,
    logger: silent,
  });
  schedulers.push(s);
  const notes: JobNotification[] = [];
  s.on("notification", (n) => notes.push(n));
  return { s, notes };
}

const store = () => new JobStore(runtime.db);

describe("a cron job", () => {
  it("runs on its tick in a fresh session, logs its result and mirrors its state", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:59:00Z"));
    const { s, notes } = scheduler(clock);
    s.start();
    expect(store().get("brief")).toMatchObject({
      status: "scheduled",
      nextRun: "2025-03-03T07:00:00.000Z",
      lastRun: null,
    });

    server.enqueue(reply.text("Brief: three meetings today."), reply.text("Brief: a quiet day."));
    clock.advance(MINUTE);
    await s.idle();

    const row = store().get("brief");
    expect(row).toMatchObject({
      status: "succeeded",
      lastRun: "2025-03-03T07:00:00.000Z",
      nextRun: "2025-03-04T07:00:00.000Z",
      lastError: null,
    });
    expect(row?.lastResultRef).toMatch(/^logs\/2025-03-03\.md#L\d+-L\d+$/);
    const log = readFileSync(join(brain.root, "logs/2025-03-03.md"), "utf8");
    expect(log).toContain("## Cron brief 2025-03-03 07:00 UTC");
    expect(log).toContain("Brief: three meetings today.");
    expect(notes.map((n) => n.status)).toEqual(["running", "succeeded"]);
    expect(notes[1]).toMatchObject({ jobId: "brief", reason: "scheduled", resultRef: row?.lastResultRef });
    expect(server.chatRequests()[0]?.messages.at(-1)).toEqual({
      role: "user",
      content: "Write the morning brief.",
    });

    clock.advance(DAY);
    await s.idle();
    const runs = store().runs("brief");
    expect(runs).toHaveLength(2);
    expect(runs[0]?.sessionId).not.toBe(runs[1]?.sessionId);
    // The second run's conversation starts from nothing: no trace of the first run's answer.
    expect(server.chatRequests()[1]?.messages.slice(1)).toEqual([
      { role: "user", content: "Write the morning brief." },
    ]);
  });

  it("runs once after downtime however many ticks were missed", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const first = scheduler(clock);
    first.s.start();
    await first.s.stop();

    // Three days later: the 07:00 ticks of the 3rd, 4th, 5th and 6th were all missed.
    clock.set(Date.parse("2025-03-06T12:00:00Z"));
    server.enqueue(reply.text("Caught up."));
    const second = scheduler(clock);
    second.s.start();
    await second.s.idle();

    const runs = store().runs("brief");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      reason: "catch_up",
      scheduledFor: "2025-03-03T07:00:00.000Z",
      status: "succeeded",
    });
    expect(store().get("brief")?.nextRun).toBe("2025-03-07T07:00:00.000Z");
    expect(server.chatRequests()).toHaveLength(1);
    expect(second.notes.at(-1)).toMatchObject({ status: "succeeded", reason: "catch_up" });
  });

  it("catches up when the wall clock jumps while it runs (a cell resumed from disk), then keeps its ticks", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const { s, notes } = scheduler(clock);
    s.start();
    // Saved at 06:00, resumed at 09:30: the process ran on, its timers still waiting for 07:00 in its own time.
    clock.set(Date.parse("2025-03-03T09:30:00Z"));
    server.enqueue(reply.text("Late brief."), reply.text("Next brief."));
    clock.advance(10 * SECOND);
    await s.idle();
    expect(store().runs("brief")).toEqual([
      expect.objectContaining({
        reason: "catch_up",
        scheduledFor: "2025-03-03T07:00:00.000Z",
        status: "succeeded",
      }),
    ]);
    expect(notes.at(-1)).toMatchObject({ status: "succeeded", reason: "catch_up" });
    expect(store().get("brief")?.nextRun).toBe("2025-03-04T07:00:00.000Z");
    // The timer armed for the old 07:00 does not fire a second run; the next day's does.
    clock.advance(DAY);
    await s.idle();
    expect(
      store()
        .runs("brief")
        .map((r) => r.scheduledFor),
    ).toEqual(["2025-03-03T07:00:00.000Z", "2025-03-04T07:00:00.000Z"]);
  });

  it("does not catch up when nothing was missed", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    scheduler(clock).s.start();
    clock.set(Date.parse("2025-03-03T06:30:00Z"));
    const again = scheduler(clock);
    again.s.start();
    await again.s.idle();
    expect(store().runs("brief")).toHaveLength(0);
  });

  it("records a failed run with its error and tells the host", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:59:00Z"));
    const { s, notes } = scheduler(clock);
    s.start();
    server.enqueue(reply.status(404, "The model `test-model` does not exist"));
    clock.advance(MINUTE);
    await s.idle();
    expect(store().get("brief")).toMatchObject({ status: "failed" });
    expect(store().get("brief")?.lastError).toContain("does not know model");
    expect(notes.at(-1)).toMatchObject({ status: "failed" });
    expect(readFileSync(join(brain.root, "logs/2025-03-03.md"), "utf8")).toContain("_failed · scheduled run");
  });

  it("mirrors a disabled job without a next run and never runs it", async () => {
    jobs(`${BRIEF}enabled = false\n`);
    const clock = new ManualClock(Date.parse("2025-03-03T06:59:00Z"));
    const { s } = scheduler(clock);
    s.start();
    clock.advance(2 * DAY);
    await s.idle();
    expect(store().get("brief")).toMatchObject({ status: "disabled", nextRun: null });
    expect(store().runs("brief")).toHaveLength(0);
  });

  it("fails runs a crash left running, so they do not stay running forever", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const { s } = scheduler(clock);
    store().upsertDefinition(
      { id: "brief", schedule: "0 7 * * *", timezone: "UTC", prompt: "x", enabled: true },
      undefined,
      new Date(),
    );
    store().startRun({
      runId: "r1",
      jobId: "brief",
      reason: "manual",
      scheduledFor: null,
      startedAt: "2025-03-02T07:00:00Z",
      sessionId: "s",
    });
    s.start();
    expect(store().runs("brief")[0]).toMatchObject({
      status: "failed",
      error: "interrupted: the runtime stopped during the run",
    });
  });
});

describe("jobs.toml changes", () => {
  it("an invalid file keeps the last good schedule running and reports the error", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const { s } = scheduler(clock);
    const errors: Error[] = [];
    s.on("config_error", (e) => errors.push(e));
    s.start();

    jobs('[[jobs]]\nid = "brief"\nschedule = "61 7 * * *"\nprompt = "Write the morning brief."\n');
    expect(s.reload()).toBe(false);
    expect(errors[0]?.message).toMatch(/jobs\.toml:3: jobs\[0\]\.schedule: .*minute/);
    expect(s.lastError).toBe(errors[0]);

    server.enqueue(reply.text("Still running."));
    clock.advance(DAY);
    await s.idle();
    expect(store().runs("brief")).toHaveLength(1);
    expect(store().get("brief")).toMatchObject({ schedule: "0 7 * * *", status: "succeeded" });
  });

  it("editing the file reloads the schedule, and a broken edit is reported without dropping it", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const { s } = scheduler(clock, { watch: true });
    s.start();
    const next = (event: "reloaded" | "config_error") =>
      new Promise<void>((resolve) => {
        if (event === "reloaded") s.once("reloaded", () => resolve());
        else s.once("config_error", () => resolve());
      });

    const broken = next("config_error");
    jobs("[[jobs]\nid = ");
    await broken;
    expect(s.definitions().map((j) => j.id)).toEqual(["brief"]);

    const reloaded = next("reloaded");
    jobs(
      `${BRIEF}\n[[jobs]]\nid = "digest"\nschedule = "30 18 * * 5"\ntimezone = "Europe/Berlin"\nprompt = "Weekly digest."\n`,
    );
    await reloaded;
    expect(s.definitions().map((j) => j.id)).toEqual(["brief", "digest"]);
    // Friday 18:30 in Berlin is 17:30 UTC in March (before summer time).
    expect(store().get("digest")).toMatchObject({
      nextRun: "2025-03-07T17:30:00.000Z",
      timezone: "Europe/Berlin",
    });
  });

  it("a job removed from the file leaves the mirror", async () => {
    jobs(`${BRIEF}\n[[jobs]]\nid = "gone"\nschedule = "@daily"\nprompt = "x"\n`);
    const clock = new ManualClock(Date.parse("2025-03-03T06:00:00Z"));
    const { s } = scheduler(clock);
    s.start();
    expect(
      store()
        .list()
        .map((r) => r.jobId),
    ).toEqual(["brief", "gone"]);
    jobs(BRIEF);
    s.reload();
    expect(
      store()
        .list()
        .map((r) => r.jobId),
    ).toEqual(["brief"]);
  });
});

describe("running a job on demand", () => {
  it("runs now with an overriding prompt and returns the outcome", async () => {
    jobs(BRIEF);
    const clock = new ManualClock(Date.parse("2025-03-03T10:00:00Z"));
    const { s } = scheduler(clock);
    server.enqueue(reply.text("Done on demand."));
    const outcome = await s.runNow("brief", "Just say done.");
    expect(outcome).toMatchObject({
      jobId: "brief",
      status: "succeeded",
      reason: "manual",
      text: "Done on demand.",
    });
    expect(server.chatRequests()[0]?.messages.at(-1)).toEqual({ role: "user", content: "Just say done." });
    await expect(s.runNow("nope")).rejects.toThrow(/not found/);
  });
});
