import { normalizeSha256 } from "../common.js";
import type { BranchNode } from "./branch-node.js";

/**
 * The fields that tie a node into the tree and to its content (seed 002 §4: "do not mutate immutable node
 * linkage fields after creation"): its identity, its parent, and the hashes and ratchet step of what it
 * captured. Locations (`*_ref`), the network token and the attestation are left out: an artifact may be
 * re-uploaded elsewhere under the same hash, tokens rotate, and an attestation is filled in after creation.
 */
const LINKAGE = {
  node_id: (n: BranchNode) => n.node_id,
  parent_node_id: (n: BranchNode) => n.parent_node_id,
  // A digest compares in one spelling: `sha256:<hex>` and bare `<hex>` name the same bytes.
  "workspace.artifact_hash": (n: BranchNode) => normalizeSha256(n.workspace.artifact_hash),
  "state_db.state_id": (n: BranchNode) => n.state_db.state_id,
  "state_db.snapshot_hash": (n: BranchNode) => normalizeSha256(n.state_db.snapshot_hash),
  "state_db.ratchet_step": (n: BranchNode) => n.state_db.ratchet_step,
} as const;

export type ImmutableNodeField = keyof typeof LINKAGE;

export const IMMUTABLE_NODE_FIELDS = Object.keys(LINKAGE) as readonly ImmutableNodeField[];

/** The immutable fields whose value differs between a stored node and a proposed update of it, in order. */
export function diffImmutableFields(before: BranchNode, after: BranchNode): ImmutableNodeField[] {
  return IMMUTABLE_NODE_FIELDS.filter((field) => LINKAGE[field](before) !== LINKAGE[field](after));
}
