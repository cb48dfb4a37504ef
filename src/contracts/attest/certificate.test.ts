import { describe, expect, it } from "vitest";
import { issuesFromZod } from "../../core/index.js";
import { type CertificateInput, certificateSchema } from "./certificate.js";

const hex = (c: string) => c.repeat(64);

const promptRun: CertificateInput = {
  type: "loom-agent-run-v1",
  job_id: "9b2d4f6a-1c3e-4a5b-8c7d-0e1f2a3b4c5d",
  request_hash: `sha256:${hex("1")}`,
  mode: "prompt-run",
  parent_state: null,
  result: { response_sha256: hex("2"), response_locator: "artifact://responses/1", new_state: null },
  runtime: {
    workflow_ref: `o/r/.github/workflows/loom-paid-run.yml@${"a".repeat(40)}`,
    runner_class: "github-hosted",
    started_at: "2026-02-28T10:00:00Z",
    finished_at: "2026-02-28T10:00:30Z",
  },
  timestamp: "2026-02-28T10:00:31Z",
};

const license: CertificateInput = {
  ...promptRun,
  mode: "state-license",
  parent_state: {
    state_id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
    bundle_sha256: hex("3"),
    ratchet_step: 7,
  },
  result: {
    response_sha256: null,
    response_locator: null,
    new_state: {
      state_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      bundle_sha256: hex("4"),
      bundle_manifest_sha256: hex("5"),
    },
  },
};

function problems(value: unknown): string[] {
  const result = certificateSchema.safeParse(value);
  return result.success ? [] : issuesFromZod(result.error).map((i) => `${i.path} ${i.message}`);
}

describe("certificate mode rules", () => {
  it("accepts a stateless prompt-run that certifies its response", () => {
    expect(problems(promptRun)).toEqual([]);
  });

  it("requires a prompt-run to certify its response digest and locator", () => {
    expect(
      problems({
        ...promptRun,
        result: { ...promptRun.result, response_sha256: null, response_locator: null },
      }),
    ).toEqual([
      "$.result.response_sha256 is required (not null) when mode is prompt-run",
      "$.result.response_locator is required (not null) when mode is prompt-run",
    ]);
  });

  it("accepts a state-license that names the state it started from and the one it produced", () => {
    expect(problems(license)).toEqual([]);
  });

  it("requires a state-license to name its parent state and its new state", () => {
    expect(
      problems({ ...license, parent_state: null, result: { ...license.result, new_state: null } }),
    ).toEqual([
      "$.parent_state is required (not null) when mode is state-license",
      "$.result.new_state is required (not null) when mode is state-license",
    ]);
  });

  it("lets a mode leave out, not only null, the fields it does not need", () => {
    const { parent_state: _parent, ...rest } = promptRun;
    expect(
      problems({ ...rest, result: { response_sha256: hex("2"), response_locator: "artifact://r/1" } }),
    ).toEqual([]);
  });

  it("accepts the hashes prefixed, as real certificates write them, or bare", () => {
    const prefixed = {
      ...license,
      parent_state: { ...license.parent_state, bundle_sha256: `sha256:${hex("3")}` },
      result: {
        ...license.result,
        new_state: {
          state_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
          bundle_sha256: `sha256:${hex("4")}`,
          bundle_manifest_sha256: `sha256:${hex("5")}`,
        },
      },
    };
    expect(problems(prefixed)).toEqual([]);
    expect(problems({ ...promptRun, request_hash: hex("1") })).toEqual([]);
  });

  it("accepts a replay block of any identifiers, and refuses one that is not an object", () => {
    const replay = { job_id: promptRun.job_id, run_attempt: 2, gh_run_id: "123456" };
    expect(problems({ ...promptRun, replay })).toEqual([]);
    expect(problems({ ...promptRun, replay: "123456" })).toEqual(["$.replay must be a JSON object"]);
  });

  it("does not take a prompt-run's rules for a state-license", () => {
    expect(problems({ ...promptRun, mode: "state-license" })).toEqual([
      "$.parent_state is required (not null) when mode is state-license",
      "$.result.new_state is required (not null) when mode is state-license",
    ]);
  });

  it("compares start and finish as instants, across offsets", () => {
    const runtime = {
      ...promptRun.runtime,
      started_at: "2026-02-28T11:00:01+01:00",
      finished_at: "2026-02-28T10:00:00Z",
    };
    expect(problems({ ...promptRun, runtime })).toEqual([
      "$.runtime.finished_at must not be before started_at",
    ]);
  });
});
