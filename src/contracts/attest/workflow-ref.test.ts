import { describe, expect, it } from "vitest";
import { parseWorkflowRef } from "./workflow-ref.js";

const commit = "4f9d2c1b8a7e6d5c4b3a29180f7e6d5c4b3a2918";

describe("parseWorkflowRef", () => {
  it("splits a pinned workflow ref into owner, repo, file and commit", () => {
    expect(parseWorkflowRef(`ironclaw-dev/loom/.github/workflows/loom-paid-run.yml@${commit}`)).toEqual({
      owner: "ironclaw-dev",
      repo: "loom",
      path: ".github/workflows/loom-paid-run.yml",
      commit,
    });
  });

  it("accepts the .yaml extension and dotted repository names", () => {
    expect(parseWorkflowRef(`o/my.repo/.github/workflows/run.yaml@${commit}`)?.repo).toBe("my.repo");
  });

  it.each([
    ["an abbreviated commit", "o/r/.github/workflows/run.yml@4f9d2c1"],
    ["a branch pin", "o/r/.github/workflows/run.yml@main"],
    ["a file outside .github/workflows", `o/r/ci/run.yml@${commit}`],
    ["a nested workflow directory", `o/r/.github/workflows/sub/run.yml@${commit}`],
    ["a non-YAML file", `o/r/.github/workflows/run.json@${commit}`],
    ["a missing owner", `r/.github/workflows/run.yml@${commit}`],
    ["a repository named ..", `o/../.github/workflows/run.yml@${commit}`],
  ])("rejects %s", (_what, ref) => {
    expect(parseWorkflowRef(ref)).toBeUndefined();
  });
});
