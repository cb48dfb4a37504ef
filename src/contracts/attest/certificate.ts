import { z } from "zod";
import { fieldRule, sha256HexDigest, sha256Ref, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { ratchetStepField, recordOf, rfc3339Field, storedRefField } from "./formats.js";
import { workflowRefField } from "./workflow-ref.js";

export const CERTIFICATE_MODES = ["prompt-run", "state-license"] as const;
export const RUNNER_CLASSES = ["github-hosted", "self-hosted"] as const;

const stateRef = z.strictObject(
  { state_id: uuid, bundle_sha256: sha256HexDigest, ratchet_step: ratchetStepField },
  recordOf("parent_state"),
);

const newState = z.strictObject(
  { state_id: uuid, bundle_sha256: sha256HexDigest, bundle_manifest_sha256: sha256HexDigest },
  recordOf("new_state"),
);

/**
 * What each mode must certify (seed 002 §5.4, "mode-specific required fields"). Every mode carries the replay
 * identifiers `job_id` and `request_hash`. A `prompt-run` answers a prompt, so its response digest and locator
 * are required; it may start from no state and leave none (`parent_state`, `new_state` null). A
 * `state-license` licenses an existing state forward, so the state it started from and the state it produced
 * are required, and a response is optional. Fields a mode does not need are null rather than absent: the
 * certificate is hashed, and one fixed shape keeps its canonical bytes predictable for verifiers.
 */
export const MODE_REQUIREMENTS = {
  "prompt-run": ["result.response_sha256", "result.response_locator"],
  "state-license": ["parent_state", "result.new_state"],
} as const satisfies Record<(typeof CERTIFICATE_MODES)[number], readonly string[]>;

/** A run certificate (seed 002 §2). Strict throughout: its bytes are hashed and compared (§5.3). */
export const certificateSchema = z
  .strictObject(
    {
      type: z.literal("loom-agent-run-v1", fieldRule('must be "loom-agent-run-v1"')),
      job_id: uuid,
      request_hash: sha256Ref,
      mode: z.enum(CERTIFICATE_MODES, fieldRule(`must be one of ${CERTIFICATE_MODES.join(", ")}`)),
      parent_state: stateRef.nullable(),
      result: z.strictObject(
        {
          response_sha256: sha256HexDigest.nullable(),
          response_locator: storedRefField.nullable(),
          new_state: newState.nullable(),
        },
        recordOf("result"),
      ),
      runtime: z.strictObject(
        {
          workflow_ref: workflowRefField,
          runner_class: z.enum(RUNNER_CLASSES, fieldRule(`must be one of ${RUNNER_CLASSES.join(", ")}`)),
          started_at: rfc3339Field,
          finished_at: rfc3339Field,
        },
        recordOf("runtime"),
      ),
      timestamp: rfc3339Field,
    },
    recordOf("certificate"),
  )
  .superRefine((cert, ctx) => {
    const values: Record<string, unknown> = {
      parent_state: cert.parent_state,
      "result.response_sha256": cert.result.response_sha256,
      "result.response_locator": cert.result.response_locator,
      "result.new_state": cert.result.new_state,
    };
    for (const field of MODE_REQUIREMENTS[cert.mode]) {
      if (values[field] !== null) continue;
      ctx.addIssue({
        code: "custom",
        path: field.split("."),
        message: `must not be null when mode is ${cert.mode}`,
      });
    }
    if (Date.parse(cert.runtime.finished_at) < Date.parse(cert.runtime.started_at)) {
      ctx.addIssue({
        code: "custom",
        path: ["runtime", "finished_at"],
        message: "must not be before started_at",
      });
    }
  });

export type Certificate = z.output<typeof certificateSchema>;
export type CertificateInput = z.input<typeof certificateSchema>;
export type CertificateMode = Certificate["mode"];

export const certificateContract = defineContract({
  kind: "certificate",
  seed: "002",
  title: "Agent run certificate",
  description:
    "A loom-agent-run-v1 certificate: job and request hash, mode, parent and new state, response digest and " +
    "locator, and the pinned workflow and runner that produced them.",
  format: "json",
  schema: certificateSchema,
});
