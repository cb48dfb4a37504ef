import { describe, expect, it } from "vitest";
import { fakeApi, ok } from "../testing/fake-api.js";
import { checkCronForm, createCronController, hasProblems } from "./cron-controller.js";
import { previewSchedule } from "./cron-schedule.js";

const form = (over: Partial<Parameters<typeof checkCronForm>[0]> = {}) => ({
  editing: null,
  id: "garden-check",
  schedule: "0 7 * * *",
  timezone: "UTC",
  agent: "",
  prompt: "Check on the quince tree.",
  enabled: true,
  ...over,
});
const check = (f: ReturnType<typeof form>) => checkCronForm(f, previewSchedule(f.schedule, f.timezone));

describe("the cron form", () => {
  it("has no problems when every field is right", () => {
    expect(hasProblems(check(form()))).toBe(false);
  });

  it("names each problem by its field: the id, every schedule field, the prompt", () => {
    const problems = check(form({ id: "-bad id", schedule: "61 25 * * *", prompt: "  " }));
    expect(problems.id).toMatch(/starts with a letter or digit/);
    expect(problems.schedule).toEqual(["Invalid value for minute: 61", "Invalid value for hour: 25"]);
    expect(problems.prompt).toMatch(/prompt/);
    expect(hasProblems(problems)).toBe(true);
    // An edited job keeps its id (the form shows it disabled): only a new one is checked.
    expect(check(form({ editing: "x", id: "" })).id).toBeUndefined();
  });

  it("does not send a save while the schedule is invalid, and sends it once it is fixed", async () => {
    const { client, calls } = fakeApi({
      "GET /api/cron/jobs": () => ok({ jobs: [] }),
      "GET /api/agents": () => ok({ agents: [] }),
      "POST /api/cron/jobs": (args) => ok({ ...(args.body as { id: string }) }) as never,
    });
    const cron = createCronController(client);
    await cron.dispatch({ type: "new" });
    await cron.dispatch({ type: "field", field: "id", value: "garden-check" });
    await cron.dispatch({ type: "field", field: "prompt", value: "Check the tree." });
    await cron.dispatch({ type: "field", field: "schedule", value: "61 25 * * *" });
    expect(cron.problems()?.schedule).toHaveLength(2);
    await cron.dispatch({ type: "save" });
    expect(calls.filter((c) => c.key === "POST /api/cron/jobs")).toHaveLength(0);
    await cron.dispatch({ type: "field", field: "schedule", value: "30 6 * * 1-5" });
    expect(cron.problems()?.schedule).toEqual([]);
    await cron.dispatch({ type: "save" });
    expect(calls.filter((c) => c.key === "POST /api/cron/jobs")).toHaveLength(1);
    expect(cron.state.form).toBeNull();
    cron.dispose();
  });
});
