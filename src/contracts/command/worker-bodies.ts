import { z } from "zod";
import { commitSha, idString, nonEmptyString, oneOf } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { absolutePath, flag, token } from "./fields.js";
import { orderProfileSchema, toolPolicySchema } from "./order-file.js";

/** POST /jobs (seed 000 §3.5): the HTTP form of a job for workers that are not fed by the queue. */
export const workerJobRequestSchema = z.strictObject({
  order_id: idString,
  theater_id: idString,
  run_id: idString,
  unit_id: idString,
  worktree_path: absolutePath,
  profile: orderProfileSchema,
  tool_policy: toolPolicySchema,
});

/** POST /integrate (seed 000 §3.7). gate_profile names the configured set of gates; "default" when omitted. */
export const integrateRequestSchema = z.strictObject({
  theater_id: idString,
  order_id: idString,
  worktree_path: absolutePath,
  gate_profile: token.default("default"),
});

export const INTEGRATION_RESULTS = ["passed", "failed"] as const;

/**
 * What integration did: every gate's outcome and, when all passed and the change was promoted, the mainline
 * commit (the one INTEGRATED reports). A failed integration promotes nothing, so it has no commit.
 */
export const integrateDataSchema = z
  .strictObject({
    order_id: idString,
    result: z.enum(INTEGRATION_RESULTS, { error: oneOf(INTEGRATION_RESULTS) }),
    commit_sha: commitSha.nullable(),
    gates: z.array(z.strictObject({ name: nonEmptyString, passed: flag, detail: nonEmptyString.optional() })),
  })
  .superRefine((d, ctx) => {
    if (d.result === "passed" && d.commit_sha === null)
      ctx.addIssue({ code: "custom", message: "must be set when result is passed", path: ["commit_sha"] });
    if (d.result === "failed" && d.commit_sha !== null)
      ctx.addIssue({ code: "custom", message: "must be null when result is failed", path: ["commit_sha"] });
    if (d.result === "passed") {
      d.gates.forEach((g, i) => {
        if (!g.passed)
          ctx.addIssue({
            code: "custom",
            message: "must be true when result is passed: every gate passes",
            path: ["gates", i, "passed"],
          });
      });
    }
  });

export type WorkerJobRequest = z.input<typeof workerJobRequestSchema>;
export type IntegrateRequest = z.input<typeof integrateRequestSchema>;
export type ParsedIntegrateRequest = z.output<typeof integrateRequestSchema>;
export type IntegrateData = z.output<typeof integrateDataSchema>;

export const workerContracts: Contract[] = [
  defineContract({
    kind: "worker-job-request",
    seed: "000",
    title: "Worker job request (POST /jobs)",
    description: "An order for an HTTP-controlled worker: ids, worktree path, model profile and tool policy.",
    format: "json",
    schema: workerJobRequestSchema,
  }),
  defineContract({
    kind: "integrate-request",
    seed: "000",
    title: "Integrate request (POST /integrate)",
    description: 'Validate, gate and promote an order\'s worktree; gate_profile defaults to "default".',
    format: "json",
    schema: integrateRequestSchema,
  }),
  defineResponseContract({
    kind: "integrate-response",
    title: "Integrate response (POST /integrate)",
    description: "passed or failed, each gate's outcome, and the promoted commit when passed.",
    data: integrateDataSchema,
  }),
];
