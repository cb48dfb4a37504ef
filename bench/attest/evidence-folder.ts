// An evidence folder of certified chat turns as the warden keeps one (src/warden/attest/evidence-store.ts):
// prompt-run certificates signed with a real host key, their proofs and replies, and a node chain where each
// turn's node is the child of the one before. Written once, untimed: only reading it is measured.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestOf, issueCertificate, loadOrCreateHostKey, proofLocator } from "../../src/attest/index.js";
import { canonicalBytes } from "../../src/core/index.js";
import { chatRequest, unattestedNode, WORKFLOW_REF } from "../../test/support/evidence-folder.js";

export const VERIFIED_PARTS = ["certificates", "proofs", "nodes"] as const;

/** Writes `turns` certified turns under `dir`, the host key under `home`; returns the instant they are valid at. */
export function writeTurnEvidence(home: string, dir: string, turns: number): Date {
  for (const part of [...VERIFIED_PARTS, "responses"]) mkdirSync(join(dir, part), { recursive: true });
  const key = loadOrCreateHostKey(home);
  writeFileSync(join(dir, "public-key.pem"), key.publicKeyPem);
  const now = new Date();
  const root = unattestedNode(randomUUID(), null, randomUUID(), 0);
  writeFileSync(join(dir, "nodes", `${root.node_id}.json`), canonicalBytes(root));
  let parent = root.node_id;
  for (let step = 1; step <= turns; step++) {
    const jobId = randomUUID();
    const reply = Buffer.from(`noted: turn ${step}`);
    const node = unattestedNode(randomUUID(), parent, randomUUID(), step);
    const issued = issueCertificate(
      {
        jobId,
        mode: "prompt-run",
        request: chatRequest(`turn ${step}`),
        response: { sha256: digestOf(reply), locator: `artifact://responses/${jobId}.txt` },
        runtime: { workflowRef: WORKFLOW_REF, startedAt: now.toISOString(), finishedAt: now.toISOString() },
        commitShaRequired: randomBytes(20).toString("hex"),
        node,
        now,
      },
      key,
    );
    if (issued.nodeBytes === undefined || issued.node?.attestation.proof_ref !== proofLocator(jobId))
      throw new Error(`turn ${step}: the certificate came back without its attested node`);
    writeFileSync(join(dir, "responses", `${jobId}.txt`), reply);
    writeFileSync(join(dir, "proofs", `${jobId}.json`), issued.proofBytes);
    writeFileSync(join(dir, "nodes", `${node.node_id}.json`), issued.nodeBytes);
    writeFileSync(join(dir, "certificates", `${jobId}.json`), issued.bytes);
    parent = node.node_id;
  }
  return now;
}
