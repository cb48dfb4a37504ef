import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  digestOf,
  type HostKey,
  ironclawWorkflowRef,
  issueCertificate,
  loadOrCreateHostKey,
} from "../../src/attest/index.js";
import type { BranchNode } from "../../src/contracts/index.js";
import { canonicalBytes } from "../../src/core/index.js";

/** A request as a chat turn certifies it. */
export function chatRequest(text: string) {
  return {
    messages: [{ role: "user", content: text }],
    profile: "default",
    model: "test-model",
    tool_policy: { allow: ["memory_write"] },
  };
}

export const WORKFLOW_REF = ironclawWorkflowRef({ name: "ironclaw", version: "0.1.0" }, "c".repeat(40));

export function unattestedNode(
  nodeId: string,
  parent: string | null,
  stateId: string,
  step: number,
): BranchNode {
  return {
    schema_version: "agent_swarm-node-v1",
    node_id: nodeId,
    parent_node_id: parent,
    workspace: {
      artifact_hash: digestOf(Buffer.from(`tree ${step}`)),
      artifact_ref: `artifact://trees/${nodeId}`,
    },
    state_db: {
      state_id: stateId,
      snapshot_hash: digestOf(Buffer.from(`db ${step}`)),
      snapshot_ref: `artifact://bundles/${stateId}/state_bundle.tar.enc`,
      ratchet_step: step,
      engine: { kind: "sqlite-serialized", schema_version: "loom-state-v1" },
    },
    network: {
      route_mode: "direct",
      token: { token_ref: `envelope:${step}`, ratchet_step: step, expires_at: null },
    },
    attestation: { commit_sha_required: null, artifact_hash: null, proof_ref: null },
  };
}

export interface EvidenceFolder {
  dir: string;
  home: string;
  key: HostKey;
  jobIds: string[];
  nodeIds: string[];
  stateIds: string[];
  now: Date;
}

/**
 * An evidence folder as export writes it: a root node, then `turns` chat turns, each a state-license certificate
 * from the previous state to a new one, signed by a real host key, with its attested node and an encrypted
 * bundle's bytes (random here: verify only hashes them).
 */
export function writeEvidenceFolder(turns = 2, now = new Date("2026-11-27T12:00:00Z")): EvidenceFolder {
  const base = mkdtempSync(join(tmpdir(), "ironclaw-evidence-"));
  const home = join(base, "home");
  const dir = join(base, "evidence");
  for (const sub of ["certificates", "proofs", "responses", "nodes", "bundles"])
    mkdirSync(join(dir, sub), { recursive: true });
  const key = loadOrCreateHostKey(home);
  writeFileSync(join(dir, "public-key.pem"), key.publicKeyPem);
  const stateIds = [randomUUID()];
  const nodeIds = [randomUUID()];
  const root = unattestedNode(nodeIds[0] as string, null, stateIds[0] as string, 0);
  writeFileSync(join(dir, "nodes", `${root.node_id}.json`), canonicalBytes(root));
  let parentBundle = writeBundle(dir, stateIds[0] as string);
  const jobIds: string[] = [];
  for (let step = 1; step <= turns; step++) {
    const stateId = randomUUID();
    const nodeId = randomUUID();
    const bundleSha = writeBundle(dir, stateId);
    const issued = issueCertificate(
      {
        request: chatRequest(`turn ${step}`),
        mode: "state-license",
        parentState: {
          state_id: stateIds.at(-1) as string,
          bundle_sha256: parentBundle,
          ratchet_step: step - 1,
        },
        newState: {
          state_id: stateId,
          bundle_sha256: bundleSha,
          bundle_manifest_sha256: digestOf(Buffer.from(`manifest ${step}`)),
        },
        response: {
          sha256: digestOf(Buffer.from(`answer ${step}`)),
          locator: `artifact://responses/${step}.json`,
        },
        runtime: { workflowRef: WORKFLOW_REF, startedAt: now.toISOString(), finishedAt: now.toISOString() },
        commitShaRequired: randomBytes(20).toString("hex"),
        node: unattestedNode(nodeId, nodeIds.at(-1) as string, stateId, step),
        now,
      },
      key,
    );
    const jobId = issued.certificate.job_id;
    writeFileSync(join(dir, "certificates", `${jobId}.json`), issued.bytes);
    writeFileSync(join(dir, "proofs", `${jobId}.json`), issued.proofBytes);
    writeFileSync(join(dir, "responses", `${step}.json`), `answer ${step}`);
    writeFileSync(join(dir, "nodes", `${nodeId}.json`), issued.nodeBytes as Buffer);
    jobIds.push(jobId);
    nodeIds.push(nodeId);
    stateIds.push(stateId);
    parentBundle = bundleSha;
  }
  return { dir, home, key, jobIds, nodeIds, stateIds, now };
}

function writeBundle(dir: string, stateId: string): string {
  const bytes = randomBytes(256);
  mkdirSync(join(dir, "bundles", stateId), { recursive: true });
  writeFileSync(join(dir, "bundles", stateId, "state_bundle.tar.enc"), bytes);
  const sha = digestOf(bytes);
  writeFileSync(
    join(dir, "bundles", stateId, "bundle_locator_next.json"),
    canonicalBytes({ bundle_ref: `artifact://bundles/${stateId}/state_bundle.tar.enc`, bundle_sha256: sha }),
  );
  return sha;
}
