import { describe, expect, it } from "vitest";
import { evaluateCompletion } from "./completion-gate.js";
import type { CompletionField } from "./run-fields.js";

const ALL: CompletionField[] = [
  "run_id",
  "branch",
  "commit_sha",
  "files_changed",
  "test_result",
  "risk",
  "pr_url",
];

const dispatch = (required: CompletionField[] = ALL) => ({
  run_id: "task-20260222-001",
  output_contract: { required_fields: required },
});

const completion = {
  run_id: "task-20260222-001",
  branch: "jarvis-dispatch-contract",
  commit_sha: "abc1234",
  files_changed: ["src/index.ts"],
  test_result: "npm test passed",
  risk: "low",
  pr_url: "https://github.com/openclaw-gurusharan/nanoclaw/pull/17",
};

const output = (value: unknown) =>
  `Finished.\n<completion>\n${JSON.stringify(value, null, 2)}\n</completion>\n`;

function issuePaths(verdict: ReturnType<typeof evaluateCompletion>): string[] {
  return verdict.status === "failed_contract" ? verdict.issues.map((i) => i.path) : [];
}

describe("evaluateCompletion", () => {
  it("requests review when every gate passes and returns the parsed completion", () => {
    expect(evaluateCompletion(dispatch(), output(completion))).toEqual({
      status: "review_requested",
      completion,
    });
  });

  describe("gate 1: a parseable JSON block", () => {
    it("fails the contract when the output has no block", () => {
      const verdict = evaluateCompletion(dispatch(), "I opened the PR.");
      expect(verdict).toEqual({
        status: "failed_contract",
        issues: [{ path: "$", code: "no_completion_block", message: "no <completion> block" }],
      });
    });

    it("fails the contract when the block is not JSON", () => {
      const verdict = evaluateCompletion(dispatch(), "<completion>run_id: task-20260222-001</completion>");
      expect(verdict.status).toBe("failed_contract");
      expect(issuePaths(verdict)).toEqual(["$"]);
    });

    it("fails the contract when the block holds JSON that is not an object", () => {
      const verdict = evaluateCompletion(dispatch(), output(["task-20260222-001"]));
      expect(verdict).toEqual({
        status: "failed_contract",
        issues: [{ path: "$", code: "invalid_type", message: "completion must be a JSON object" }],
      });
    });
  });

  describe("gate 2: every required artifact present", () => {
    it("fails when a required field is missing", () => {
      const { risk: _risk, ...rest } = completion;
      const verdict = evaluateCompletion(dispatch(), output(rest));
      expect(verdict.status === "failed_contract" && verdict.issues).toEqual([
        { path: "$.risk", code: "missing_field", message: "is required by the output contract" },
      ]);
    });

    it("accepts pr_skipped_reason in place of a required pr_url", () => {
      const { pr_url: _url, ...rest } = completion;
      const verdict = evaluateCompletion(dispatch(), output({ ...rest, pr_skipped_reason: "no remote" }));
      expect(verdict.status).toBe("review_requested");
    });

    it("asks for pr_url or pr_skipped_reason when neither is given", () => {
      const { pr_url: _url, ...rest } = completion;
      const verdict = evaluateCompletion(dispatch(), output(rest));
      expect(verdict.status === "failed_contract" && verdict.issues).toEqual([
        { path: "$.pr_url", code: "missing_field", message: "pr_url or pr_skipped_reason is required" },
      ]);
    });

    it("lets a field outside required_fields be omitted", () => {
      const verdict = evaluateCompletion(
        dispatch(["run_id", "test_result"]),
        output({ run_id: completion.run_id, test_result: "ok" }),
      );
      expect(verdict).toEqual({
        status: "review_requested",
        completion: { run_id: completion.run_id, test_result: "ok" },
      });
    });

    it("still rejects a malformed field that was not required", () => {
      const verdict = evaluateCompletion(
        dispatch(["run_id"]),
        output({ run_id: completion.run_id, commit_sha: "HEAD" }),
      );
      expect(issuePaths(verdict)).toEqual(["$.commit_sha"]);
    });

    it("rejects a completion that both opened and skipped a pull request", () => {
      const verdict = evaluateCompletion(
        dispatch(),
        output({ ...completion, pr_skipped_reason: "no remote" }),
      );
      expect(issuePaths(verdict)).toEqual(["$.pr_skipped_reason"]);
    });
  });

  describe("gate 3: the run id matches the dispatch", () => {
    it("fails when the completion answers another run", () => {
      const verdict = evaluateCompletion(dispatch(), output({ ...completion, run_id: "task-20260222-002" }));
      expect(verdict.status === "failed_contract" && verdict.issues).toEqual([
        {
          path: "$.run_id",
          code: "run_id_mismatch",
          message: 'must equal the dispatch run_id "task-20260222-001", not "task-20260222-002"',
        },
      ]);
    });

    it("fails when run_id is absent even if the output contract does not list it", () => {
      const { run_id: _id, ...rest } = completion;
      const verdict = evaluateCompletion(dispatch(["risk"]), output(rest));
      expect(issuePaths(verdict)).toEqual(["$.run_id"]);
    });
  });

  it("reports the problems of every gate at once", () => {
    const { risk: _risk, ...rest } = completion;
    const verdict = evaluateCompletion(dispatch(), output({ ...rest, run_id: "other", commit_sha: "zz" }));
    expect(issuePaths(verdict).sort()).toEqual(["$.commit_sha", "$.risk", "$.run_id"]);
  });
});
