import { describe, expect, it } from "vitest";
import type { InstalledSkill, SkillReview } from "../api/skills-endpoints.js";
import { deferred, fakeApi, ok, refused } from "../testing/fake-api.js";
import { createSkillsController } from "./skills-controller.js";

const SHA = "a".repeat(64);
const reach = {
  hosts: [
    { host: "api.github.com", secret: "GITHUB_TOKEN", header: "Authorization", format: "Bearer {secret}" },
  ],
  secrets: ["GITHUB_TOKEN"],
  env: ["GITHUB_TOKEN"],
  bins: ["gh"],
  any_bins: [],
  allowed_tools: ["bash"],
};
const review: SkillReview = {
  user: "ada",
  name: "github-issues",
  description: "Files issues",
  sha256: SHA,
  files: [{ path: "SKILL.md", bytes: 120, sha256: SHA }],
  reach,
  ignored_installers: [],
  replaces: null,
};
const installed: InstalledSkill = {
  name: "github-issues",
  description: "Files issues",
  sha256: SHA,
  approved_at: "2026-11-28T05:00:00.000Z",
  approved_by: "user:ada",
  available: true,
  unavailable_reason: null,
  reach,
};

/** A fake warden with one staged review: an install of its hash adds the skill, removing takes it away. */
function warden() {
  let skills: InstalledSkill[] = [];
  let stored: Array<{ name: string; created_at: string; updated_at: string }> = [];
  const { client, calls } = fakeApi({
    "GET /api/skills": () => ok({ user: "ada", skills }),
    "GET /api/secrets": () => ok({ user: "ada", secrets: stored, bindings: [], needs: [] }),
    "PUT /api/secrets/:name": (args) => {
      const name = (args.params as { name: string }).name;
      const info = { name, created_at: "2026-11-28T05:00:00.000Z", updated_at: "2026-11-28T05:00:00.000Z" };
      stored = [info];
      return ok(info);
    },
    "POST /api/skills/review": () => ok(review),
    "POST /api/skills/install": (args) => {
      const sha = (args.body as { sha256: string }).sha256;
      if (sha !== SHA) return refused(409, "conflict", `sha256: approved ${sha} but reviewed ${SHA}`);
      skills = [installed];
      return ok(installed);
    },
    "DELETE /api/skills/:name": () => {
      skills = [];
      return ok({ user: "ada", name: "github-issues", removed: true });
    },
  });
  return { client, calls };
}

describe("the skills controller", () => {
  it("installs exactly the reviewed upload: the approval sends the hash the review showed", async () => {
    const { client, calls } = warden();
    const skills = createSkillsController(client);
    await skills.dispatch({ type: "review", file: new Blob(["archive"]), filename: "github-issues.tgz" });
    expect(calls.find((c) => c.key === "POST /api/skills/review")?.args.query).toEqual({
      filename: "github-issues.tgz",
    });
    expect(skills.state.review?.reach.hosts[0]?.host).toBe("api.github.com");
    await skills.dispatch({ type: "approve" });
    expect(calls.find((c) => c.key === "POST /api/skills/install")?.args.body).toEqual({ sha256: SHA });
    expect(skills.state.review).toBeNull();
    expect(skills.state.list?.skills.map((s) => s.name)).toEqual(["github-issues"]);
    expect(skills.state.message?.text).toBe("Installed github-issues, pinned to aaaaaaaaaaaa.");
  });

  it("shows the warden's refusal of an upload and keeps no review to approve", async () => {
    const { client } = fakeApi({
      "POST /api/skills/review": () =>
        refused(400, "validation_failed", "scripts/x: is a symbolic link; a skill holds regular files only"),
    });
    const skills = createSkillsController(client);
    await skills.dispatch({ type: "review", file: new Blob(["archive"]) });
    expect(skills.state.review).toBeNull();
    expect(skills.state.message).toEqual({
      level: "error",
      text: "The skill was refused: scripts/x: is a symbolic link; a skill holds regular files only",
    });
  });

  it("removes a skill only after the confirmation, and a cancelled review's late answer is dropped", async () => {
    const { client, calls } = warden();
    const skills = createSkillsController(client);
    await skills.dispatch({ type: "review", file: new Blob(["archive"]) });
    await skills.dispatch({ type: "approve" });
    await skills.dispatch({ type: "ask-remove", name: "github-issues" });
    expect(calls.some((c) => c.key === "DELETE /api/skills/:name")).toBe(false);
    expect(skills.state.confirmRemove).toBe("github-issues");
    await skills.dispatch({ type: "remove", name: "github-issues" });
    expect(skills.state.list?.skills).toEqual([]);

    const slow = deferred<ReturnType<typeof ok<SkillReview>>>();
    const late = createSkillsController(fakeApi({ "POST /api/skills/review": () => slow.promise }).client);
    const pending = late.dispatch({ type: "review", file: new Blob(["archive"]) });
    await late.dispatch({ type: "cancel-review" });
    slow.resolve(ok(review));
    await pending;
    expect(late.state.review).toBeNull();
  });

  it("stores a skill's secret once and shows it as set, never holding its value", async () => {
    const { client, calls } = warden();
    const skills = createSkillsController(client);
    await skills.dispatch({ type: "start" });
    expect(skills.state.secretNames).toEqual([]);
    await skills.dispatch({ type: "set-secret", name: "GITHUB_TOKEN", value: "ghp_x" });
    expect(calls.find((c) => c.key === "PUT /api/secrets/:name")?.args).toMatchObject({
      params: { name: "GITHUB_TOKEN" },
      body: { value: "ghp_x" },
    });
    expect(skills.state.secretNames).toEqual(["GITHUB_TOKEN"]);
    expect(JSON.stringify(skills.state)).not.toContain("ghp_x");
  });
});
