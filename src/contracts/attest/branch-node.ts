import { z } from "zod";
import { fieldRule, hex40, sha256Ref, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { ratchetStepField, recordOf, rfc3339Field, s3RefField, storedRefField } from "./formats.js";

/*
 * Seed 002 §1 prints the node with placeholders ("uuid", "sha256:...", "s3://...|artifact://...",
 * "RFC3339|null"): they name each field's format and nullability, they are not literal values, so the seed
 * fixture carries real values of those formats. Every object is strict: a node is hashed and linked by
 * other nodes, and a key no reader knows would change its hash while meaning nothing.
 */

export const ROUTE_MODES = ["direct", "client_exit"] as const;

export const branchNodeSchema = z.strictObject(
  {
    schema_version: z.literal("agent_swarm-node-v1", fieldRule('must be "agent_swarm-node-v1"')),
    node_id: uuid,
    // null only for a root node; the key is always written so that the linkage is explicit.
    parent_node_id: uuid.nullable(),
    workspace: z.strictObject(
      { artifact_hash: sha256Ref, artifact_ref: storedRefField },
      recordOf("workspace"),
    ),
    state_db: z.strictObject(
      {
        state_id: uuid,
        snapshot_hash: sha256Ref,
        snapshot_ref: storedRefField,
        ratchet_step: ratchetStepField,
        engine: z.strictObject(
          {
            kind: z.literal("sqlite-serialized", fieldRule('must be "sqlite-serialized"')),
            schema_version: z.literal("loom-state-v1", fieldRule('must be "loom-state-v1"')),
          },
          recordOf("engine"),
        ),
      },
      recordOf("state_db"),
    ),
    network: z.strictObject(
      {
        route_mode: z.enum(ROUTE_MODES, fieldRule(`must be one of ${ROUTE_MODES.join(", ")}`)),
        token: z.strictObject(
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
    attestation: z.strictObject(
      {
        commit_sha_required: hex40.nullable(),
        artifact_hash: sha256Ref.nullable(),
        proof_ref: s3RefField.nullable(),
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
