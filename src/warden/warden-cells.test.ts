import { afterEach, describe, expect, it, vi } from "vitest";
import { type ScriptedParts, scriptedCells } from "../../test/support/scripted-cell.js";
import {
  startScriptedUnits,
  startWardenUnits,
  type WardenUnitOptions,
  type WardenUnits,
} from "../../test/support/warden-units.js";
import type { JobStatus, MemoryForgotten } from "../contracts/index.js";
import type { JobNotice } from "./chat-events.js";

// WardenCells over fake cells (test/support/fake-cell.ts): the real inmate server and lifecycle in this process,
// a scripted handler in place of the agent. Starting, greeting, relaying and stopping, in milliseconds.

let units: WardenUnits | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await units?.close();
  units = undefined;
});

async function start(
  parts: Parameters<typeof scriptedCells>[0] = () => ({}),
  options: Omit<WardenUnitOptions, "handler"> = {},
) {
  const started = await startScriptedUnits(parts, options);
  units = started.units;
  return started;
}

const profiles: ScriptedParts = {
  describe: () => ({
    agents: [
      { name: "assistant", provider: "local", model: "test-model" },
      { name: "coder", provider: "local", model: "test-coder" },
    ],
    defaultAgent: "assistant",
  }),
};

describe("WardenCells", () => {
  it("starts a user's cell on first use, greets it, and hands the same cell to every caller after", async () => {
    const { units: u } = await start(() => profiles);
    expect(u.cells.running("ada")).toBeUndefined();
    const [first, second] = await Promise.all([u.cells.get("ada"), u.cells.get("ada")]);
    expect(u.started).toHaveLength(1);
    expect(second.cell).toBe(first.cell);
    expect(first.ready).toMatchObject({
      type: "Ready",
      user_id: "ada",
      handler: "scripted",
      default_agent: "assistant",
      agents: [{ name: "assistant" }, { name: "coder", model: "test-coder" }],
    });
    expect(u.cells.running("ada")).toBe(first.cell);
    expect((await u.cells.get("ada")).cell).toBe(first.cell);
    // The profiles are asked for again each time (the owner may edit them), of the running cell.
    expect((await u.cells.describe("ada")).agents.map((a) => a.name)).toEqual(["assistant", "coder"]);
    expect(u.started).toHaveLength(1);
    // Another user gets a cell of their own.
    const other = await u.cells.get("bob");
    expect(other.cell).not.toBe(first.cell);
    expect(other.cell.userId).toBe("bob");
    expect(u.started.map((c) => c.userId)).toEqual(["ada", "bob"]);
  });

  it("refuses a cell that answers Hello with an Error, stops it, and starts a fresh one next time", async () => {
    let starts = 0;
    const { units: u, scripted } = await start(() => {
      const attempt = starts++;
      return {
        describe: () => {
          if (attempt === 0) throw new Error("agent profile coder names no model");
          return profiles.describe?.() ?? { agents: [] };
        },
      };
    });
    await expect(u.cells.get("ada")).rejects.toThrow(
      "the cell could not start its agent: agent profile coder names no model",
    );
    // Stopped on purpose, so not counted as a crash: nothing restarts it until the user comes back.
    await vi.waitFor(() => expect(u.cells.running("ada")).toBeUndefined());
    expect(scripted.cells[0]?.closed).toBe(true);
    expect(u.cells.manager.failure("ada")).toBeUndefined();
    const again = await u.cells.get("ada");
    expect(again.ready.default_agent).toBe("assistant");
    expect(u.started).toHaveLength(2);
  });

  it("says a cell whose agent could not be built stopped before it was ready, and the next start serves", async () => {
    let starts = 0;
    const scripted = scriptedCells();
    units = await startWardenUnits({
      handler: (peer) => {
        if (starts++ === 0) throw new Error("the brain's index is corrupt");
        return scripted.handler(peer);
      },
    });
    // The inmate reports a fatal Error and ends; the warden reports the exit, not a lost channel.
    await expect(units.cells.get("ada")).rejects.toThrow(/^the cell stopped before it was ready: it stopped/);
    const next = await units.cells.get("ada");
    expect(next.ready.type).toBe("Ready");
    expect(starts).toBe(2);
    expect(units.cells.manager.failure("ada")?.crashes).toBe(1);
  });

  it("gives up on a cell whose Ready never comes, once the ready timeout has passed", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // An agent still loading (a brain's index being built): the server answers Hello only once it is there.
    let loaded = () => {};
    const loading = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    const scripted = scriptedCells();
    units = await startWardenUnits({
      handler: (peer) => loading.then(() => scripted.handler(peer)),
      readyTimeoutMs: 5_000,
    });
    const started = new Promise<void>((resolve) =>
      units?.cells.manager.onEvent((event) => event.kind === "started" && resolve()),
    );
    const got = units.cells.get("ada");
    // The Hello (and its timer) goes out as soon as the cell is up.
    await started;
    await new Promise((resolve) => setImmediate(resolve));
    const outcome = got.then(
      () => "ready",
      (error: Error) => error.message,
    );
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await Promise.race([outcome, Promise.resolve("waiting")])).toBe("waiting");
    // After the timeout the warden gives a dying cell a moment to say how it ended; this one just sits there.
    await vi.advanceTimersByTimeAsync(3_001);
    expect(await outcome).toBe("the cell did not get ready: no final reply within 5000 ms");
    // The silent cell is stopped, not kept with its failed greeting: the user's next request starts a new one.
    loaded();
    vi.useRealTimers();
    await vi.waitFor(() => expect(units?.cells.manager.list().some((c) => c.userId === "ada")).toBe(false));
    const again = await units.cells.get("ada");
    expect(again.ready.type).toBe("Ready");
  });

  it("relays the cell's own job reports and forget notices, not the replies to the warden's requests", async () => {
    const { units: u, scripted } = await start(() => ({
      async *onJobTrigger() {
        yield { status: "running" };
        yield { status: "succeeded", result_ref: "logs/triggered.md" };
      },
    }));
    const statuses: Array<[string, JobStatus["status"], string]> = [];
    const forgotten: Array<[string, MemoryForgotten["scope"], number]> = [];
    const notices: JobNotice[] = [];
    u.cells.onJobStatus((user, status) => statuses.push([user, status.status, status.job_id]));
    u.cells.onForgotten((user, notice) => forgotten.push([user, notice.scope, notice.places]));
    u.chat.onJobNotice((notice) => notices.push(notice));
    const { cell } = await u.cells.get("ada");
    const guest = scripted.cells[0];
    if (!guest) throw new Error("no cell");

    // A run the warden triggered is answered to the warden's request only.
    const replies = [];
    for await (const reply of cell.request({ type: "JobTrigger", job_id: "triggered" })) replies.push(reply);
    expect(replies.map((r) => r.type === "JobStatus" && r.status)).toEqual(["running", "succeeded"]);

    guest.notify({ job_id: "digest", status: "running" });
    guest.notify({ job_id: "digest", status: "succeeded", result_ref: "logs/2026-11-27.md" });
    guest.notify({ job_id: "backup", status: "failed", error: "the disk is full" });
    guest.peer.send({ type: "MemoryForgotten", scope: { query: "old address" }, places: 2 });
    await vi.waitFor(() => expect(forgotten).toHaveLength(1));
    await vi.waitFor(() => expect(statuses).toHaveLength(3));
    expect(statuses).toEqual([
      ["ada", "running", "digest"],
      ["ada", "succeeded", "digest"],
      ["ada", "failed", "backup"],
    ]);
    expect(forgotten).toEqual([["ada", { query: "old address" }, 2]]);
    // The chat's notices are the finished runs, as the channels relay them.
    expect(notices).toEqual([
      { userId: "ada", jobId: "digest", status: "succeeded", resultRef: "logs/2026-11-27.md" },
      { userId: "ada", jobId: "backup", status: "failed", error: "the disk is full" },
    ]);
  });

  it("stops a cell on request after it flushed, without counting a crash, and starts it again on next use", async () => {
    const { units: u, scripted } = await start();
    const { cell } = await u.cells.get("ada");
    await u.cells.stop("ada");
    const exit = await cell.exited;
    expect(exit.requested).toBe(true);
    expect(scripted.cells[0]?.closed).toBe(true);
    expect(u.cells.running("ada")).toBeUndefined();
    expect(u.cells.manager.failure("ada")).toBeUndefined();
    const again = await u.cells.get("ada");
    expect(again.cell).not.toBe(cell);
    expect(u.started).toHaveLength(2);
  });

  it("stops a cell left idle for [cells] idle_stop_minutes, and keeps one in use running", async () => {
    // 0.002 minutes: 120 ms.
    const { units: u, scripted } = await start(() => ({}), {
      config: { cells: { idle_stop_minutes: 0.002 } },
    });
    const events: string[] = [];
    u.cells.manager.onEvent((event) => {
      if (event.kind === "stopped") events.push(`${event.userId} ${event.why}`);
    });
    const { cell } = await u.cells.get("ada");
    const bob = await u.cells.get("bob");
    // Bob keeps talking; ada says nothing.
    const talking = setInterval(() => void u.cells.get("bob"), 30);
    try {
      const exit = await cell.exited;
      expect(exit.requested).toBe(true);
      await vi.waitFor(() => expect(events).toEqual(["ada idle"]));
      expect(scripted.cells[0]?.closed).toBe(true);
      expect(u.cells.running("bob")).toBe(bob.cell);
    } finally {
      clearInterval(talking);
    }
  });
});
