import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IntegrationTheater, passingGate } from "../../../test/support/integration-theater.js";
import type { GateRequest, GateRunner } from "./gate-runner.js";
import { Integrator } from "./integrate.js";
import { IntegrationRefusedError } from "./integration-refusal.js";

// Merging at most once, conflicts, refusals and crash recovery. No gate cell here (the gate cases are in
// integrate-gate.test.ts): a runner that records what it was asked and passes it shows which commands an order
// is gated by, and that a refused or recovered order never reaches the gate.
let theater: IntegrationTheater;
let gated: GateRequest[];
const passing = passingGate;
const recordingGates: GateRunner = {
  run: async (request) => {
    gated.push(request);
    return passing(request);
  },
};
const integrator = (dependencies = true) =>
  new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: recordingGates,
    dependenciesIntegrated: () => dependencies,
  });
const input = (orderId: string, worktreePath: string) => ({
  theaterId: "demo",
  orderId,
  worktreePath,
  gateProfile: "default",
});

beforeEach(async () => {
  theater = await IntegrationTheater.create();
  gated = [];
});
afterEach(async () => {
  await theater.close();
});

describe("integrating an order at most once", () => {
  it("merges a completed order with one merge commit and records INTEGRATED with main's new tip", async () => {
    const before = await theater.main();
    const wt = await theater.completedOrder("o1", { files: { "notes/a.txt": "a\n" } });
    const result = await integrator().integrate(input("o1", wt));
    expect(result.result).toBe("passed");
    expect(result.commit_sha).toBe(await theater.main());
    expect(await theater.mergesOnMain()).toEqual([result.commit_sha]);
    expect(await theater.eventTypes("o1")).toEqual(
      expect.arrayContaining(["INTEGRATION_STARTED", "INTEGRATION_PASSED", "INTEGRATED"]),
    );
    const order = await theater.store.getOrder("o1");
    expect(order?.integration_state).toBe("INTEGRATED");
    expect(order?.commit_sha).toBe(result.commit_sha);
    // The merge's parents are the old main and the order's branch tip with its records moved into a folder of
    // its own (one commit on top of the tip): nothing that was on main is lost, and no order's order.json or
    // aar.json sits at main's root where the next order's would meet it.
    const { hostGit } = await import("../git/host-git.js");
    const parents = (await hostGit(theater.repo, ["rev-parse", "main^1", "main^2^"])).stdout
      .trim()
      .split("\n");
    const tip = (await hostGit(theater.repo, ["rev-parse", "order_o1"])).stdout.trim();
    expect(parents).toEqual([before, tip]);
    const onMain = (await hostGit(theater.repo, ["ls-tree", "-r", "--name-only", "main"])).stdout.split("\n");
    expect(onMain).toContain(".ironclaw/orders/o1/aar.json");
    expect(onMain).not.toContain("aar.json");
    // The repository's checkout of main followed: its files are the merge's, with nothing left to commit.
    expect((await hostGit(theater.repo, ["status", "--porcelain"])).stdout).toBe("");
    expect(existsSync(`${theater.repo}/notes/a.txt`)).toBe(true);
  });

  it("refuses the second integration of an order and merges nothing more", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    await integrator().integrate(input("o1", wt));
    const main = await theater.main();
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(
      /order o1 is not integrated: it is already INTEGRATED as [0-9a-f]{40}/,
    );
    expect(await theater.main()).toBe(main);
    expect(await theater.mergesOnMain()).toHaveLength(1);
  });

  it("lets only one of two integrators running at once merge; the other gets a conflict and does nothing", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    const outcomes = await Promise.allSettled([
      integrator().integrate(input("o1", wt)),
      integrator().integrate(input("o1", wt)),
    ]);
    const passed = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(passed).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(
      /another integration started first|already|changed while/,
    );
    expect(await theater.mergesOnMain()).toHaveLength(1);
    expect((await theater.eventTypes("o1")).filter((t) => t === "INTEGRATION_STARTED")).toHaveLength(1);
  });

  it("records INTEGRATED for a merge main already holds (a crash after the merge) without merging again", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    // What a crash leaves: main moved to a merge of the order, and the ledger never heard of it.
    await theater.commitOnMain({ "other.txt": "x\n" }, "meanwhile");
    const main = await theater.main();
    const { hostGit } = await import("../git/host-git.js");
    await hostGit(theater.repo, ["worktree", "add", "-q", "--detach", `${theater.home}/crash`, main]);
    await hostGit(`${theater.home}/crash`, ["merge", "--no-ff", "--no-edit", "order_o1"]);
    const merge = (await hostGit(`${theater.home}/crash`, ["rev-parse", "HEAD"])).stdout.trim();
    await hostGit(theater.repo, ["update-ref", "refs/heads/main", merge, main]);
    await theater.commitOnMain({ "later.txt": "later\n" }, "after the merge");

    const result = await integrator().integrate(input("o1", wt));
    expect(result).toMatchObject({ result: "passed", commit_sha: merge, recovered: true });
    expect(await theater.mergesOnMain()).toEqual([merge]);
    expect((await theater.store.getOrder("o1"))?.commit_sha).toBe(merge);
    expect(gated).toEqual([]);
  });

  it("finishes an integration left STARTED once main holds the order's merge", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    await theater.store.append(theater.event("INTEGRATION_STARTED", "o1"));
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(
      /its integration is already STARTED/,
    );
    const { hostGit } = await import("../git/host-git.js");
    const main = await theater.main();
    await hostGit(theater.repo, ["worktree", "add", "-q", "--detach", `${theater.home}/crash`, main]);
    await hostGit(`${theater.home}/crash`, ["merge", "--no-ff", "--no-edit", "order_o1"]);
    const merge = (await hostGit(`${theater.home}/crash`, ["rev-parse", "HEAD"])).stdout.trim();
    await hostGit(theater.repo, ["update-ref", "refs/heads/main", merge, main]);
    const result = await integrator().integrate(input("o1", wt));
    expect(result.commit_sha).toBe(merge);
    expect((await theater.store.getOrder("o1"))?.integration_state).toBe("INTEGRATED");
  });
});

describe("main moving during an integration", () => {
  it("merges again onto the new main when main moved while the gates ran, and gates that merge too", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" }, acceptance: ["true"] });
    let moved: string | undefined;
    const movingGates: GateRunner = {
      run: async (request) => {
        gated.push(request);
        moved ??= await theater.commitOnMain({ "b.txt": "b\n" }, "landed while the order was gated");
        return passing(request);
      },
    };
    const result = await new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates: movingGates,
      dependenciesIntegrated: () => true,
    }).integrate(input("o1", wt));
    expect(result.result).toBe("passed");
    expect(gated).toHaveLength(2);
    const { hostGit } = await import("../git/host-git.js");
    expect((await hostGit(theater.repo, ["rev-parse", "main^1"])).stdout.trim()).toBe(moved);
    expect(await theater.mergesOnMain()).toEqual([result.commit_sha]);
    expect(existsSync(`${theater.repo}/b.txt`) && existsSync(`${theater.repo}/a.txt`)).toBe(true);
  });
});

describe("a merge conflict", () => {
  it("fails the integration naming the conflicting paths, escalates, and leaves main as it was", async () => {
    const wt = await theater.completedOrder("o1", {
      files: { "shared.txt": "one\nTWO by the order\nthree\n" },
    });
    const main = await theater.commitOnMain({ "shared.txt": "one\nTWO on main\nthree\n" }, "main changed it");
    const result = await integrator().integrate(input("o1", wt));
    expect(result).toMatchObject({ result: "failed", commit_sha: null, conflicts: ["shared.txt"] });
    expect(await theater.main()).toBe(main);
    const events = await theater.store.read({ orderId: "o1" });
    const failed = events.find((e) => e.type === "INTEGRATION_FAILED");
    expect(failed?.payload).toMatchObject({ stage: "merge", conflicts: ["shared.txt"] });
    const escalation = events.find((e) => e.type === "ESCALATION_RAISED");
    expect(escalation?.payload).toMatchObject({
      severity: "MEDIUM",
      reason: expect.stringContaining("shared.txt"),
    });
    expect(gated).toEqual([]);
    // No scratch worktree is left registered in the theater's repository.
    const { hostGit } = await import("../git/host-git.js");
    const worktrees = (await hostGit(theater.repo, ["worktree", "list", "--porcelain"])).stdout;
    expect(worktrees.match(/^worktree /gm)).toHaveLength(2);
  });

  it("refuses to integrate again after the integration failed, until it is declared ready", async () => {
    const wt = await theater.completedOrder("o1", { files: { "shared.txt": "order\n" } });
    await theater.commitOnMain({ "shared.txt": "main\n" }, "main changed it");
    await integrator().integrate(input("o1", wt));
    const main = await theater.main();
    const again = integrator().integrate(input("o1", wt));
    await expect(again).rejects.toBeInstanceOf(IntegrationRefusedError);
    await expect(again).rejects.toThrow(/its integration FAILED/);
    expect(await theater.main()).toBe(main);
    // Declared ready again (the conflict resolved on main), the order is integrated.
    await theater.commitOnMain({ "shared.txt": "order\n" }, "main took the order's side");
    await theater.store.append(theater.event("INTEGRATION_READY", "o1"));
    const retried = await integrator().integrate(input("o1", wt));
    expect(retried.result).toBe("passed");
    expect(await theater.mergesOnMain()).toEqual([retried.commit_sha]);
  });
});

describe("the commands an order is gated by", () => {
  it("are the acceptance commands command wrote in order.json, not a copy the worker changed, then the profile's", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" }, acceptance: ["npm test"] });
    const { readFile, writeFile } = await import("node:fs/promises");
    const order = JSON.parse(await readFile(`${wt}/order.json`, "utf8"));
    await writeFile(`${wt}/order.json`, JSON.stringify({ ...order, inputs: { acceptance_tests: ["true"] } }));
    const { hostGit } = await import("../git/host-git.js");
    await hostGit(wt, ["commit", "-q", "-a", "-m", "the worker's own acceptance"]);
    const withLint = new Integrator({
      store: theater.store,
      theaters: theater.theaters,
      gates: recordingGates,
      dependenciesIntegrated: () => true,
      profiles: { lint: ["npx biome check ."] },
    });
    const result = await withLint.integrate({ ...input("o1", wt), gateProfile: "lint" });
    expect(result.result).toBe("passed");
    expect(gated.map((g) => g.commands)).toEqual([["npm test", "npx biome check ."]]);
    expect(gated[0]).toMatchObject({ userId: "ada", runId: "run_1", orderId: "o1" });
  });
});

describe("refusals before anything is recorded", () => {
  it("refuses an order that is not COMPLETED", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    await theater.store.append(theater.event("ORDER_CREATED", "o2"));
    await expect(integrator().integrate(input("o2", wt))).rejects.toThrow(
      /order o2 is not integrated: it is QUEUED; only a COMPLETED order is integrated/,
    );
  });

  it("refuses an order whose dependencies are not integrated", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    await expect(integrator(false).integrate(input("o1", wt))).rejects.toThrow(/an order it depends on/);
    expect(await theater.eventTypes("o1")).not.toContain("INTEGRATION_STARTED");
    expect(await theater.mergesOnMain()).toEqual([]);
  });

  it("names the artifact the order's branch does not hold", async () => {
    const wt = await theater.completedOrder("o1", {
      files: { "a.txt": "a\n" },
      artifacts: ["a.txt", "missing.txt"],
    });
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(
      "aar.json $.artifacts[1].path: missing.txt is not in branch order_o1",
    );
    expect(await theater.eventTypes("o1")).not.toContain("INTEGRATION_STARTED");
  });

  it("refuses an aar.json that is a symlink to a host file, without reading it", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    const { rm, symlink, writeFile } = await import("node:fs/promises");
    const outside = `${theater.home}/host-aar.json`;
    await writeFile(outside, "{}");
    await rm(`${wt}/aar.json`);
    await symlink(outside, `${wt}/aar.json`);
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(/aar.json: is a symlink/);
  });

  it("names the aar.json field that breaks its schema, and refuses a report of work not completed", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${wt}/aar.json`, JSON.stringify({ order_id: "o1", status: "completed" }));
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(/aar.json \$\.completed_at/);
    const aar = { order_id: "o1", status: "partial", completed_at: "2026-11-27T12:00:00Z", summary: "half" };
    await writeFile(
      `${wt}/aar.json`,
      JSON.stringify({ ...aar, artifacts: [], model: { provider: "p", name: "m" } }),
    );
    await expect(integrator().integrate(input("o1", wt))).rejects.toThrow(
      "aar.json $.status: must be completed to integrate, not partial",
    );
  });

  it("refuses a gate profile it does not know, naming the ones it has", async () => {
    const wt = await theater.completedOrder("o1", { files: { "a.txt": "a\n" } });
    await expect(integrator().integrate({ ...input("o1", wt), gateProfile: "strict" })).rejects.toThrow(
      "$.gate_profile: must be one of default",
    );
  });
});
