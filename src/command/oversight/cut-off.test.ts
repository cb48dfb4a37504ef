import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, beforeEach, expect, it } from "vitest";
import { IntegrationTheater, passingGates } from "../../../test/support/integration-theater.js";
import { ManualClock } from "../../../test/support/manual-clock.js";
import { currentOwner } from "../../core/index.js";
import { hostGit } from "../git/host-git.js";
import { Integrator } from "../integration/integrate.js";
import { ActiveOrders } from "./active-orders.js";
import { Observer } from "./observer.js";
import { DEFAULT_THRESHOLDS } from "./oversight-options.js";

// An integration a crash cut off (the process that appended INTEGRATION_STARTED is gone) is failed as cut off and
// declared ready again by a patrol, so it is integrated again — once, whether or not main already moved.

let theater: IntegrationTheater;
let clock: ManualClock;
let observer: Observer;
beforeEach(async () => {
  theater = await IntegrationTheater.create();
  clock = new ManualClock(Date.now());
  const record = {
    theater_id: "demo",
    owner: theater.owner,
    repo_path: theater.repo,
    created_at: "2026-11-27T12:00:00Z",
  };
  observer = new Observer({
    store: theater.store,
    theaters: { get: async () => record },
    orders: new ActiveOrders(theater.store),
    clock,
    thresholds: DEFAULT_THRESHOLDS,
    garrisonId: "local",
  });
});
afterEach(async () => {
  await theater.close();
});

function integrator(): Integrator {
  return new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: passingGates,
    dependenciesIntegrated: () => true,
  });
}

/** A process of this host that has ended: its pid names no process now. */
function deadOwner(): string {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return `${hostname()}/${child.stdout.toString()}/4242`;
}

async function startedBy(orderId: string, integrator: string | undefined): Promise<void> {
  await theater.store.append(theater.event("INTEGRATION_STARTED", orderId, integrator ? { integrator } : {}));
}

it("an integration whose process died is failed as cut off, made ready, and then integrated once", async () => {
  const worktree = await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
  await startedBy("o1", deadOwner());
  // The integration refuses a STARTED order: without a patrol it would stay so for good.
  await expect(
    integrator().integrate({ theaterId: "demo", orderId: "o1", worktreePath: worktree }),
  ).rejects.toThrow(/already STARTED/);

  const patrol = await observer.patrolTheater("demo");
  expect(patrol.findings).toEqual([
    { check: "cut_off_integration", order_id: "o1", detail: expect.stringMatching(/that process is gone/) },
  ]);
  expect(patrol.events_emitted).toBe(2);
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("READY");
  const [failed] = await theater.store.read({ orderId: "o1", types: ["INTEGRATION_FAILED"] });
  expect(failed?.payload).toMatchObject({ stage: "cut_off", reason: expect.stringMatching(/cut off/) });

  const result = await integrator().integrate({ theaterId: "demo", orderId: "o1", worktreePath: worktree });
  expect(result.result).toBe("passed");
  expect(await theater.mergesOnMain()).toHaveLength(1);
  // Integrated, it is no longer watched; a second patrol changes nothing.
  expect(await observer.patrolTheater("demo")).toMatchObject({ findings: [], events_emitted: 0 });
});

it("a cut off integration that had already moved main is recorded, not merged a second time", async () => {
  const worktree = await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
  await startedBy("o1", deadOwner());
  // The crash came after main moved to the merge and before INTEGRATED was written.
  await hostGit(theater.repo, ["merge", "-q", "--no-ff", "-m", "Integrate order o1", "order_o1"]);
  const main = await theater.main();

  await observer.patrolTheater("demo");
  const result = await integrator().integrate({ theaterId: "demo", orderId: "o1", worktreePath: worktree });
  expect(result).toMatchObject({ result: "passed", commit_sha: main, recovered: true });
  expect(await theater.main()).toBe(main);
  expect(await theater.mergesOnMain()).toHaveLength(1);
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("INTEGRATED");
});

it("leaves an integration alone while its process runs, and one on another host until it is stale", async () => {
  await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
  await theater.completedOrder("o2", { files: { "notes/b.txt": "b\n" } });
  await theater.completedOrder("o3", { files: { "notes/c.txt": "c\n" } });
  await startedBy("o1", currentOwner());
  await startedBy("o2", "elsewhere.example/123/456");
  await startedBy("o3", undefined);
  const quiet = await observer.patrolTheater("demo");
  expect(quiet).toMatchObject({ findings: [], events_emitted: 0 });

  // The STARTED events carry the wall clock of their append, which on a busy host can be seconds after this
  // test's clock was made: staleness is counted from them.
  clock.advance(Date.now() - clock.now() + DEFAULT_THRESHOLDS.integrationStaleMs + 1_000);
  const stale = await observer.patrolTheater("demo");
  expect(stale.findings.map((f) => f.order_id).sort()).toEqual(["o2", "o3"]);
  expect(stale.findings.every((f) => f.check === "cut_off_integration")).toBe(true);
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("STARTED");
  expect((await theater.store.getOrder("o2"))?.integration_state).toBe("READY");
});

it("a dry-run patrol reports a cut off integration without changing it", async () => {
  await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
  await startedBy("o1", deadOwner());
  const patrol = await observer.patrolTheater("demo", { dryRun: true });
  expect(patrol.findings.map((f) => f.check)).toEqual(["cut_off_integration"]);
  expect(patrol.events_emitted).toBe(0);
  expect((await theater.store.getOrder("o1"))?.integration_state).toBe("STARTED");
});
