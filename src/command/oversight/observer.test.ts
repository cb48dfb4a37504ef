import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aarOf, OversightFixture } from "../../../test/support/oversight-fixture.js";

let fx: OversightFixture;
beforeEach(async () => {
  fx = await OversightFixture.create();
});
afterEach(async () => {
  await fx.close();
});

const checks = (data: { findings: Array<{ check: string; order_id: string | null }> }) =>
  data.findings.map((f) => [f.order_id, f.check]);

describe("the observer's patrol of a theater", () => {
  it("declares a completed order with a valid AAR and its artifacts INTEGRATION_READY, once", async () => {
    const { observer } = await fx.oversight();
    await fx.completedOrder("o1", { "notes.md": "n\n", "aar.json": aarOf("o1", ["notes.md"]) });
    const first = await observer.patrolTheater("demo");
    const second = await observer.patrolTheater("demo");
    expect([first.findings, first.events_emitted]).toEqual([[], 1]);
    expect([second.findings, second.events_emitted]).toEqual([[], 0]);
    expect((await fx.store.getOrder("o1"))?.integration_state).toBe("READY");
  });

  it("escalates a completed order without aar.json, or whose declared artifact is not on its branch", async () => {
    const { observer } = await fx.oversight();
    await fx.completedOrder("o1", { "notes.md": "n\n" });
    await fx.completedOrder("o2", { "aar.json": aarOf("o2", ["report.md"]) });
    const first = await observer.patrolTheater("demo");
    expect(checks(first)).toEqual([
      ["o1", "missing_aar"],
      ["o2", "missing_artifacts"],
    ]);
    expect(first.findings[1]?.detail).toBe("not on its branch: report.md");
    const raised = await fx.store.read({ types: ["ESCALATION_RAISED"] });
    expect(raised.map((e) => [e.order_id, e.payload.severity, e.payload.route])).toEqual([
      ["o1", "HIGH", "owner"],
      ["o2", "HIGH", "owner"],
    ]);
    // A second patrol over the same state finds the same and raises nothing new; neither order is ready.
    const second = await observer.patrolTheater("demo");
    expect([checks(second), second.events_emitted]).toEqual([checks(first), 0]);
    expect((await fx.store.getOrder("o1"))?.integration_state).toBeNull();
  });

  it("reports a completed order's dirty worktree instead of declaring it ready", async () => {
    const { observer } = await fx.oversight();
    const worktree = await fx.completedOrder("o1", {
      "notes.md": "n\n",
      "aar.json": aarOf("o1", ["notes.md"]),
    });
    await writeFile(join(worktree, "stray.txt"), "left behind\n");
    const patrol = await observer.patrolTheater("demo");
    expect(checks(patrol)).toEqual([["o1", "dirty_worktree"]]);
    expect(patrol.findings[0]?.detail).toBe("uncommitted changes: stray.txt");
    expect((await fx.store.getOrder("o1"))?.integration_state).toBeNull();
    const [raised] = await fx.store.read({ orderId: "o1", types: ["ESCALATION_RAISED"] });
    expect(raised?.payload).toMatchObject({ severity: "MEDIUM", check: "dirty_worktree" });
  });

  it("requires recovery of an order running too long and of one whose branch has had no commit", async () => {
    const { observer } = await fx.oversight();
    await fx.startedOrder("o1");
    expect((await observer.patrolTheater("demo")).findings).toEqual([]);
    fx.clock.advance(121_000);
    expect(checks(await observer.patrolTheater("demo"))).toEqual([["o1", "stalled_order"]]);
    fx.clock.advance(600_000);
    const later = await observer.patrolTheater("demo");
    expect(checks(later)).toEqual([
      ["o1", "stalled_order"],
      ["o1", "stale_worktree"],
    ]);
    expect(later.events_emitted).toBe(1);
    const required = await fx.store.read({ orderId: "o1", types: ["RECOVERY_REQUIRED"] });
    expect(required.map((e) => e.payload.check)).toEqual(["stalled_order", "stale_worktree"]);
    // The observer only reports: reissuing is the duty officer's.
    expect((await fx.store.getOrder("o1"))?.status).toBe("RUNNING");
  });

  it("a dry run or a tighter threshold for one patrol: findings without events, and only in the theater named", async () => {
    const { observer } = await fx.oversight();
    await fx.startedOrder("o1");
    fx.clock.advance(70_000);
    const before = await fx.store.head();
    const dry = await observer.patrolTheater("demo", { stallAfterMs: 1_000, dryRun: true });
    // Never shorter than the order's own 60 s budget, which it has passed.
    expect([checks(dry), dry.events_emitted]).toEqual([[["o1", "stalled_order"]], 0]);
    expect(await fx.store.head()).toBe(before);
    await fx.theaters.add({ theaterId: "other", owner: "ada" });
    expect((await observer.patrolTheater("other", { stallAfterMs: 1_000 })).findings).toEqual([]);
  });
});
