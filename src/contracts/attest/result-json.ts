import { z } from "zod";
import { fieldRule, sha256Digest, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, recordOf, runIdField } from "./formats.js";

/** The run statuses IronClaw's backend writes; the seed names none, so readers accept any status. */
export const BACKEND_RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const;

/**
 * The restore modes IronClaw's backend writes: `fresh` from no state, `bundle` by decrypting the parent's
 * encrypted state bundle, `snapshot` from the parent node's `state_db.snapshot_ref`. The seed names none.
 */
export const RESTORE_MODES = ["fresh", "bundle", "snapshot"] as const;

const label = z.string(fieldRule("must be a string")).min(1, "must not be empty");

/**
 * `result.json`, the backend's summary of one run. Seed 002 §3 describes it in bullets, not keys: "run status",
 * "node transition summary", "restore mode", "certificate/artifact refs", and names two keys, "`bundle_ref` may
 * use `gh-artifact://<gh_run_id>/<artifact_name>`" and "`bundle_sha256` should hash uploaded encrypted bytes".
 * So no key is required and none has a closed list of values; the keys IronClaw writes for those bullets are
 * typed when present, and anything else a backend writes is kept.
 */
export const resultJsonSchema = z.looseObject(
  {
    schema_version: label.optional(),
    job_id: uuid.optional(),
    /** The backend's run (GitHub's numeric run id, or a producer's `run-1`). */
    run_id: runIdField.optional(),
    run_status: label.optional(),
    node_transition: z
      .looseObject({ from_node_id: uuid.nullish(), to_node_id: uuid.nullish() }, recordOf("node_transition"))
      .optional(),
    restore_mode: label.optional(),
    certificate_ref: locatorField.nullish(),
    /** `sha256(certificate_bytes)`, what a node's `attestation.artifact_hash` must equal (§5.3). */
    certificate_hash: sha256Digest.nullish(),
    bundle_ref: locatorField.nullish(),
    /** Digest of the encrypted bytes exactly as uploaded (`state_bundle.tar.enc`), never of the plaintext. */
    bundle_sha256: sha256Digest.nullish(),
    artifact_refs: z.array(locatorField, fieldRule("must be an array of artifact locators")).optional(),
  },
  recordOf("result.json"),
);

export type ResultJson = z.output<typeof resultJsonSchema>;

export const resultJsonContract = defineContract({
  kind: "result-json",
  seed: "002",
  title: "Backend result.json",
  description:
    "The backend's summary of one run, every key optional as the seed's bullets leave them: status, node " +
    "transition, restore mode, certificate and its hash, encrypted bundle locator and digest, artifact locators.",
  format: "json",
  schema: resultJsonSchema,
});
