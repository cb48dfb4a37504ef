import { randomUUID } from "node:crypto";
import type { BranchNode } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";

const DIGEST = /^(?:sha256:)?([0-9a-f]{64})$/;

/** The node of one state of a brain's history: what seed 002 §1 asks, nothing more (exact in what we emit). */
export function newNode(o: {
  nodeId: string;
  parent: BranchNode | undefined;
  artifactHash: string;
  db: string;
  commit: string;
  step: number;
}): BranchNode {
  return {
    schema_version: "agent_swarm-node-v1",
    node_id: o.nodeId,
    parent_node_id: o.parent?.node_id ?? null,
    // The tree lives at the commit in this history; an export gives it a location of its own.
    workspace: { artifact_hash: o.artifactHash, artifact_ref: `artifact://history/commits/${o.commit}` },
    state_db: {
      state_id: randomUUID(),
      snapshot_hash: o.db,
      snapshot_ref: `artifact://history/nodes/${o.nodeId}/state.db`,
      ratchet_step: o.step,
      engine: { kind: "sqlite-serialized", schema_version: "loom-state-v1" },
    },
    // A brain at home has no network capability to carry; "local" says so until an export issues one.
    network: { route_mode: "direct", token: { token_ref: "local", ratchet_step: o.step, expires_at: null } },
    attestation: { commit_sha_required: o.commit, artifact_hash: null, proof_ref: null },
  };
}

/** `sha256:<hex>` from a digest given hex or prefixed; anything else is refused naming the field. */
export function snapshotDigest(value: string): string {
  const match = DIGEST.exec(value);
  if (!match)
    throw new InvalidInputError(
      "dbSnapshotSha256",
      "must be a sha256 digest: 64 lowercase hex digits, optionally sha256:-prefixed",
    );
  return `sha256:${match[1]}`;
}
