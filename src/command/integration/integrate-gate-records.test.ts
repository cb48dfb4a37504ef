import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bwrapGateRunner,
  bwrapUsable,
  IntegrationTheater,
} from "../../../test/support/integration-theater.js";
import { hostGit } from "../git/host-git.js";
import { Integrator } from "./integrate.js";

// The records of every merged order stay on main, but the gate cell gets them only when a gate command asks.
let theater: IntegrationTheater;
let gates: ReturnType<typeof bwrapGateRunner>;

beforeAll(async () => {
  theater = await IntegrationTheater.create();
  gates = bwrapGateRunner(theater.home);
});
afterAll(async () => {
  await theater.close();
});

const integrator = () =>
  new Integrator({
    store: theater.store,
    theaters: theater.theaters,
    gates: gates.runner,
    dependenciesIntegrated: () => true,
    commandTimeoutMs: 60_000,
  });

async function merge(orderId: string, acceptance: string[]) {
  const wt = await theater.completedOrder(orderId, {
    files: { [`notes/${orderId}.txt`]: `${orderId}\n` },
    acceptance,
  });
  return integrator().integrate({ theaterId: "demo", orderId, worktreePath: wt });
}

const recordsOnMain = async () =>
  (await hostGit(theater.repo, ["ls-tree", "-r", "--name-only", "main", "--", ".ironclaw/orders"])).stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.split("/")[2]);

describe.skipIf(!bwrapUsable)("the order records in the gate cell", () => {
  it("leaves the records of earlier orders out of the gate cell, and the merge still carries every order's", async () => {
    expect((await merge("first", ["test -f notes/first.txt"])).result).toBe("passed");
    expect(new Set(await recordsOnMain())).toEqual(new Set(["first"]));
    // Looks for the records folder without naming it (a command that names it gets it).
    const second = await merge("second", ["test -f notes/first.txt && ! ls -A | grep -q ironclaw"]);
    expect(second.result).toBe("passed");
    expect(second.gates.map((g) => g.name)).not.toContain("tree");
    expect(new Set(await recordsOnMain())).toEqual(new Set(["first", "second"]));
  }, 120_000);

  it("copies the records in when a gate command names them", async () => {
    const third = await merge("third", ["test -f .ironclaw/orders/first/aar.json"]);
    expect(third.result).toBe("passed");
    expect(new Set(await recordsOnMain())).toEqual(new Set(["first", "second", "third"]));
  }, 120_000);
});
