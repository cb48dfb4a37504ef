import { z } from "zod";
import { fieldRule, sha256HexDigest, sha256Ref, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, recordOf } from "./formats.js";

export const BACKEND_RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const;

/**
 * How the run got its starting state: `fresh` from none, `bundle` by decrypting the parent's encrypted state
 * bundle, `snapshot` from the parent node's `state_db.snapshot_ref`.
 */
export const RESTORE_MODES = ["fresh", "bundle", "snapshot"] as const;

/**
 * `result.json`, the backend's summary of one run (seed 002 §3). The seed lists its contents as bullets; this
 * is the precise shape. Strict: it is ours end to end and read by the verifier.
 */
export const resultJsonSchema = z
  .strictObject(
    {
      schema_version: z.literal("ironclaw-result-v1", fieldRule('must be "ironclaw-result-v1"')),
      job_id: uuid,
      run_status: z.enum(
        BACKEND_RUN_STATUSES,
        fieldRule(`must be one of ${BACKEND_RUN_STATUSES.join(", ")}`),
      ),
      node_transition: z.strictObject(
        { from_node_id: uuid.nullable(), to_node_id: uuid.nullable() },
        recordOf("node_transition"),
      ),
      restore_mode: z.enum(RESTORE_MODES, fieldRule(`must be one of ${RESTORE_MODES.join(", ")}`)),
      certificate_ref: locatorField.nullable(),
      /** `sha256(certificate_bytes)`, what a node's `attestation.artifact_hash` must equal (§5.3). */
      certificate_hash: sha256Ref.nullable(),
      bundle_ref: locatorField.nullable(),
      /** Digest of the encrypted bytes exactly as uploaded (`state_bundle.tar.enc`), never of the plaintext. */
      bundle_sha256: sha256HexDigest.nullable(),
      artifact_refs: z.array(locatorField, fieldRule("must be an array of artifact locators")),
    },
    recordOf("result.json"),
  )
  .superRefine((result, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: "custom", path, message });
    const { from_node_id, to_node_id } = result.node_transition;
    if (result.run_status === "succeeded") {
      if (to_node_id === null)
        issue(["node_transition", "to_node_id"], "must not be null when the run succeeded");
      if (result.certificate_ref === null)
        issue(["certificate_ref"], "must not be null when the run succeeded");
    }
    if (from_node_id !== null && from_node_id === to_node_id) {
      issue(["node_transition", "to_node_id"], "must differ from from_node_id: a run creates a new node");
    }
    if (result.restore_mode !== "fresh" && from_node_id === null) {
      issue(
        ["node_transition", "from_node_id"],
        `must not be null when restore_mode is ${result.restore_mode}`,
      );
    }
    if ((result.certificate_ref === null) !== (result.certificate_hash === null)) {
      issue(["certificate_hash"], "must be given exactly when certificate_ref is");
    }
    if ((result.bundle_ref === null) !== (result.bundle_sha256 === null)) {
      issue(["bundle_sha256"], "must be given exactly when bundle_ref is");
    }
  });

export type ResultJson = z.output<typeof resultJsonSchema>;

export const resultJsonContract = defineContract({
  kind: "result-json",
  seed: "002",
  title: "Backend result.json",
  description:
    "The backend's summary of one run: status, node transition, restore mode, certificate and its hash, " +
    "encrypted state bundle locator and digest, and other artifact locators.",
  format: "json",
  schema: resultJsonSchema,
});
