import { z } from "zod";
import { fieldRule, hex40, sha256Digest, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { locatorField, ratchetStepField, recordOf, rfc3339Field } from "./formats.js";

/*
 * Seed 002 §1 prints the node with placeholders ("uuid", "sha256:...", "s3://...|artifact://...",
 * "RFC3339|null", "hex40|null"): they name each field's format and nullability, they are not literal values, so
 * the seed fixture carries real values of those formats. Literal values the seed prints (`agent_swarm-node-v1`,
 * `sqlite-serialized`, `loom-state-v1`) are required as printed: §4 "Version every schema explicitly". Hashes
 * are accepted prefixed (`sha256:<hex>`, as the seed writes them) or bare. Keys the seed does not name are kept
 * as written: a node is hashed as its bytes are (§4 "Hash exactly uploaded bytes"), so dropping one would change
 * the node.
 */

export const ROUTE_MODES = ["direct", "client_exit"] as const;

export const branchNodeSchema = z.looseObject(
  {
    schema_version: z.literal("agent_swarm-node-v1", fieldRule('must be "agent_swarm-node-v1"')),
    node_id: uuid,
    // "uuid|null": null only for a root node; the key is always written, as in the seed.
    parent_node_id: uuid.nullable(),
    workspace: z.looseObject(
      { artifact_hash: sha256Digest, artifact_ref: locatorField },
      recordOf("workspace"),
    ),
    state_db: z.looseObject(
      {
        state_id: uuid,
        snapshot_hash: sha256Digest,
        snapshot_ref: locatorField,
        ratchet_step: ratchetStepField,
        engine: z.looseObject(
          {
            kind: z.literal("sqlite-serialized", fieldRule('must be "sqlite-serialized"')),
            schema_version: z.literal("loom-state-v1", fieldRule('must be "loom-state-v1"')),
          },
          recordOf("engine"),
        ),
      },
      recordOf("state_db"),
    ),
    network: z.looseObject(
      {
        route_mode: z.enum(ROUTE_MODES, fieldRule(`must be one of ${ROUTE_MODES.join(", ")}`)),
        token: z.looseObject(
          {
            token_ref: z
              .string(fieldRule("must be a string"))
              .regex(/^\S+$/, "must be a non-empty reference without whitespace"),
            ratchet_step: ratchetStepField,
            expires_at: rfc3339Field.nullable(),
          },
          recordOf("token"),
        ),
      },
      recordOf("network"),
    ),
    attestation: z.looseObject(
      {
        commit_sha_required: hex40.nullable(),
        artifact_hash: sha256Digest.nullable(),
        proof_ref: locatorField.nullable(),
      },
      recordOf("attestation"),
    ),
  },
  recordOf("branch node"),
);

export type BranchNode = z.output<typeof branchNodeSchema>;
export type BranchNodeInput = z.input<typeof branchNodeSchema>;

export const branchNodeContract = defineContract({
  kind: "branch-node",
  seed: "002",
  title: "Branch node",
  description:
    "One node of the agent-swarm branch tree (agent_swarm-node-v1): its parent, workspace artifact, " +
    "SQLite state snapshot and ratchet step, network route and token, and attestation pins.",
  format: "json",
  schema: branchNodeSchema,
});
