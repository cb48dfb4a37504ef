import { afterEach, beforeEach, expect, it } from "vitest";
import { type CoHarness, openCo } from "../../../test/support/co-harness.js";
import { appendSyntheticRun } from "../../../test/support/learning-history.js";
import { Learning } from "./learning-service.js";

// The commanding officer asks the learning policy for the profile of each order whose plan names none.

let h: CoHarness;
let learning: Learning;
beforeEach(async () => {
  const router = { profileFor: (taskType: string) => learning.profileFor(taskType) };
  h = await openCo({ profileRouter: router });
  learning = new Learning({ store: h.store });
});
afterEach(async () => {
  await h.close();
});

const PLAN = {
  orders: [
    { key: "a", type: "draft", objective: "Draft it" },
    { key: "b", type: "draft", objective: "Draft it too", profile: { name: "chosen", model: "m" } },
    { key: "c", type: "review", objective: "Review it" },
  ],
};

async function plannedProfiles(): Promise<Record<string, string>> {
  const runId = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Write" });
  h.planner.reply = PLAN;
  const { order_ids } = await h.co.plan(runId);
  const profiles: Record<string, string> = {};
  for (const orderId of order_ids) {
    const plan = (await h.co.orderStatus(orderId)).plan;
    if (plan) profiles[plan.key] = `${plan.profile.name}/${plan.profile.model}`;
  }
  return profiles;
}

it("a policy change alters the next profile choice; a plan's own profile and unrouted types keep theirs", async () => {
  expect(await plannedProfiles()).toEqual({
    a: "executor_default/default",
    b: "chosen/m",
    c: "executor_default/default",
  });

  await appendSyntheticRun(h.store, [
    { type: "draft", profile: "writer", model: "big", outcome: "completed" },
    { type: "draft", profile: "terse", outcome: "failed" },
  ]);
  expect(await learning.tick()).toMatchObject({ policy_version: 1, changed: true });
  expect(await plannedProfiles()).toEqual({
    a: "writer/big",
    b: "chosen/m",
    c: "executor_default/default",
  });

  await appendSyntheticRun(h.store, [
    { type: "draft", profile: "writer", model: "big", outcome: "failed" },
    { type: "draft", profile: "terse", model: "small", outcome: "completed" },
    { type: "draft", profile: "terse", model: "small", outcome: "completed" },
  ]);
  expect(await learning.tick()).toMatchObject({ policy_version: 2, changed: true });
  expect((await plannedProfiles()).a).toBe("terse/small");
});
