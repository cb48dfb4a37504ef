import { z } from "zod";
import { commitSha, nonEmptyString, oneOf, pathSafeId } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { absolutePath, flag } from "./fields.js";
import { orderProfileSchema, toolPolicySchema } from "./order-file.js";

/**
 * POST /jobs (seed 000 §3.5 "If HTTP-controlled, use: POST /jobs"): the HTTP form of a job for workers that are
 * not fed by the queue. Every key of the seed's request is required, as in the queue's job message.
 */
export const workerJobRequestSchema = z.looseObject({
  order_id: pathSafeId,
  theater_id: pathSafeId,
  run_id: pathSafeId,
  unit_id: pathSafeId,
  worktree_path: absolutePath,
  profile: orderProfileSchema,
  tool_policy: toolPolicySchema,
});

/**
 * POST /integrate (seed 000 §3.7 `{ "theater_id", "order_id", "worktree_path", "gate_profile": "default" }`).
 * gate_profile names a configured set of gates; the seed sets no spelling, and "default" applies when omitted.
 */
export const integrateRequestSchema = z.looseObject({
  theater_id: pathSafeId,
  order_id: pathSafeId,
  worktree_path: absolutePath,
  gate_profile: nonEmptyString.default("default"),
});

export const INTEGRATION_RESULTS = ["passed", "failed"] as const;

/**
 * What integration did (IronClaw's answer; §3.7 prints none): every gate's outcome ("Run configured gates") and,
 * when all passed and the change was promoted, the mainline commit (the one "INTEGRATED (with commit SHA)"
 * reports). A failed integration promotes nothing, so it has no commit.
 */
export const integrateDataSchema = z
  .looseObject({
    order_id: pathSafeId,
    result: z.enum(INTEGRATION_RESULTS, { error: oneOf(INTEGRATION_RESULTS) }),
    commit_sha: commitSha.nullable(),
    gates: z.array(z.looseObject({ name: nonEmptyString, passed: flag, detail: nonEmptyString.optional() })),
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
