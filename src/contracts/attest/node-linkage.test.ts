import { describe, expect, it } from "vitest";
import type { BranchNode } from "./branch-node.js";
import { diffImmutableFields, IMMUTABLE_NODE_FIELDS } from "./node-linkage.js";

const node: BranchNode = {
  schema_version: "agent_swarm-node-v1",
  node_id: "3f0c6f7e-2b4d-4c1a-9a7e-5d2f8b6c1e90",
  parent_node_id: "b1d2c3e4-f5a6-4b7c-8d9e-0a1b2c3d4e5f",
  workspace: { artifact_hash: `sha256:${"a".repeat(64)}`, artifact_ref: "s3://bucket/ws.tar" },
  state_db: {
    state_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    snapshot_hash: `sha256:${"b".repeat(64)}`,
    snapshot_ref: "artifact://snapshots/1",
    ratchet_step: 42,
    engine: { kind: "sqlite-serialized", schema_version: "loom-state-v1" },
  },
  network: { route_mode: "direct", token: { token_ref: "vault:net/1", ratchet_step: 42, expires_at: null } },
  attestation: { commit_sha_required: null, artifact_hash: null, proof_ref: null },
};

const clone = (): BranchNode => structuredClone(node);

describe("diffImmutableFields", () => {
  it("finds nothing when only mutable fields changed", () => {
    const after = clone();
    after.workspace.artifact_ref = "artifact://ws/moved";
    after.state_db.snapshot_ref = "s3://other/snap";
    after.network = {
      route_mode: "client_exit",
      token: { token_ref: "vault:net/2", ratchet_step: 43, expires_at: null },
    };
    after.attestation = {
      commit_sha_required: "f".repeat(40),
      artifact_hash: `sha256:${"c".repeat(64)}`,
      proof_ref: null,
    };
    expect(diffImmutableFields(node, after)).toEqual([]);
  });

  it("treats a digest re-spelt between bare and sha256: forms as unchanged", () => {
    const after = clone();
    after.workspace.artifact_hash = "a".repeat(64);
    after.state_db.snapshot_hash = "b".repeat(64);
    expect(diffImmutableFields(node, after)).toEqual([]);
  });

  it("reports a re-parented node", () => {
    const after = clone();
    after.parent_node_id = null;
    expect(diffImmutableFields(node, after)).toEqual(["parent_node_id"]);
  });

  it("reports every changed linkage field in declaration order", () => {
    const after = clone();
    after.state_db.ratchet_step = 43;
    after.parent_node_id = null;
    after.node_id = "0d1e2f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a";
    after.workspace.artifact_hash = `sha256:${"d".repeat(64)}`;
    after.state_db.state_id = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
    after.state_db.snapshot_hash = `sha256:${"e".repeat(64)}`;
    expect(diffImmutableFields(node, after)).toEqual([...IMMUTABLE_NODE_FIELDS]);
  });

  it("covers identity, parent, and the hashes and step of captured content", () => {
    expect(IMMUTABLE_NODE_FIELDS).toEqual([
      "node_id",
      "parent_node_id",
      "workspace.artifact_hash",
      "state_db.state_id",
      "state_db.snapshot_hash",
      "state_db.ratchet_step",
    ]);
  });
});
