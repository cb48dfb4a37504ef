import { z } from "zod";
import { fieldRule, hex40, sha256Digest, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, ratchetStepField, recordOf, rfc3339Field } from "./formats.js";
import { workflowRefField } from "./workflow-ref.js";

/** Seed 002 §2: `"mode": "prompt-run|state-license"`, `"runner_class": "github-hosted|self-hosted"`. */
export const CERTIFICATE_MODES = ["prompt-run", "state-license"] as const;
export const RUNNER_CLASSES = ["github-hosted", "self-hosted"] as const;

const stateRef = z.looseObject(
  { state_id: uuid, bundle_sha256: sha256Digest, ratchet_step: ratchetStepField },
  recordOf("parent_state"),
);

const newState = z.looseObject(
  { state_id: uuid, bundle_sha256: sha256Digest, bundle_manifest_sha256: sha256Digest },
  recordOf("new_state"),
);

/**
 * What each mode must certify (seed 002 §5.4 "Mode-specific required fields and replay identifiers"). A
 * `prompt-run` answers a prompt, so its response digest and locator are required; it may start from no state
 * and leave none. A `state-license` licenses an existing state forward, so the state it started from and the
 * state it produced are required, and a response is optional. A field its mode does not need may be null or
 * left out.
 */
export const MODE_REQUIREMENTS = {
  "prompt-run": ["result.response_sha256", "result.response_locator"],
  "state-license": ["parent_state", "result.new_state"],
} as const satisfies Record<(typeof CERTIFICATE_MODES)[number], readonly string[]>;

/**
 * A run certificate (seed 002 §2 "Certificate contract (Phase 0/1)"). Every key of the seed's example is
 * required except those §5.4 makes mode-specific. Hashes are accepted prefixed (`sha256:<hex>`, what real
 * certificates carry in every hash field) or bare, as the seed prints `"bundle_sha256": "..."`. `replay` holds
 * the replay identifiers §5.4 asks a verifier to check; the seed gives them no shape, so it is any object. Keys
 * the seed does not name are kept as written, since §5.3 hashes the certificate's bytes as they are.
 */
export const certificateSchema = z
  .looseObject(
    {
      type: z.literal("loom-agent-run-v1", fieldRule('must be "loom-agent-run-v1"')),
      job_id: uuid,
      // "request_hash": "sha256(...)".
      request_hash: sha256Digest,
      mode: z.enum(CERTIFICATE_MODES, fieldRule(`must be one of ${CERTIFICATE_MODES.join(", ")}`)),
      parent_state: stateRef.nullish(),
      result: z.looseObject(
        {
          response_sha256: sha256Digest.nullish(),
          // "s3://...|artifact://...".
          response_locator: locatorField.nullish(),
          new_state: newState.nullish(),
        },
        recordOf("result"),
      ),
      runtime: z.looseObject(
        {
          workflow_ref: workflowRefField,
          runner_class: z.enum(RUNNER_CLASSES, fieldRule(`must be one of ${RUNNER_CLASSES.join(", ")}`)),
          started_at: rfc3339Field,
          finished_at: rfc3339Field,
        },
        recordOf("runtime"),
      ),
      timestamp: rfc3339Field,
      replay: z.record(z.string(), z.unknown(), fieldRule("must be a JSON object")).optional(),
      /**
       * The commit the run is pinned to (the brain commit of a chat turn, the merge commit of an order), which
       * §5.2 compares with the node's `attestation.commit_sha_required`. Not in the seed's example; IronClaw
       * writes it so a certificate carries its own pin.
       */
      commit_sha_required: hex40.nullish(),
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
      if (values[field] !== null && values[field] !== undefined) continue;
      ctx.addIssue({
        code: "custom",
        path: field.split("."),
        message: `is required (not null) when mode is ${cert.mode}`,
      });
    }
    // A run finishes after it starts: what `started_at` and `finished_at` mean, compared as instants.
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
