import { verify } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chatRequest, unattestedNode, WORKFLOW_REF } from "../../../test/support/evidence-folder.js";
import { certificateSchema, parseWorkflowRef } from "../../contracts/index.js";
import { canonicalBytes, hashCanonical, ValidationError } from "../../core/index.js";
import { loadOrCreateHostKey } from "./host-key.js";
import { ironclawWorkflowRef, issueCertificate, proofLocator } from "./issue.js";
import { digestOf, nodeContentSha256, signedMessage } from "./proof.js";

const key = loadOrCreateHostKey(mkdtempSync(join(tmpdir(), "ironclaw-issue-")));
const now = new Date("2026-11-27T12:00:00Z");
const promptRun = {
  request: chatRequest("what is on my list?"),
  mode: "prompt-run" as const,
  response: { sha256: digestOf(Buffer.from("milk")), locator: "artifact://responses/1.json" },
  runtime: {
    workflowRef: WORKFLOW_REF,
    startedAt: "2026-11-27T11:59:58Z",
    finishedAt: "2026-11-27T11:59:59Z",
  },
  now,
};

describe("issueCertificate", () => {
  it("writes a valid loom-agent-run-v1 certificate as canonical bytes, hashed over its request", () => {
    const issued = issueCertificate(promptRun, key);
    expect(certificateSchema.safeParse(JSON.parse(issued.bytes.toString())).success).toBe(true);
    expect(issued.bytes.equals(canonicalBytes(issued.certificate))).toBe(true);
    expect(issued.certificate.request_hash).toBe(hashCanonical(promptRun.request));
    expect(issued.certificate.runtime.runner_class).toBe("self-hosted");
    expect(issued.certificate.replay).toEqual({
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expires_at: "2026-12-27T12:00:00.000Z",
    });
  });

  it("signs the certificate's digest and public inputs with the host key", () => {
    const { bytes, proof, certificate } = issueCertificate(
      { ...promptRun, commitShaRequired: "a".repeat(40) },
      key,
    );
    expect(proof.key_id).toBe(key.keyId);
    expect(proof.certificate_sha256).toBe(digestOf(bytes));
    expect(proof.public_inputs).toEqual({
      job_id: certificate.job_id,
      request_hash: certificate.request_hash,
      commit_sha_required: "a".repeat(40),
      parent_state_id: null,
      new_state_id: null,
      expires_at: certificate.replay?.expires_at,
      nonce: certificate.replay?.nonce,
    });
    const message = signedMessage(proof.certificate_sha256, proof.public_inputs);
    expect(verify(null, message, key.publicKey, Buffer.from(proof.signature, "base64"))).toBe(true);
  });

  it("gives each certificate its own nonce, so two identical turns are two certificates", () => {
    const a = issueCertificate(promptRun, key);
    const b = issueCertificate(promptRun, key);
    expect(a.certificate.replay?.nonce).not.toBe(b.certificate.replay?.nonce);
    expect(a.certificate.job_id).not.toBe(b.certificate.job_id);
  });

  it("hashes a request the same whatever its key order and number spelling", () => {
    const written = chatRequest("hi");
    const reread = JSON.parse(
      '{"tool_policy":{"allow":["memory_write"]},"model":"test-model","profile":"default","messages":[{"content":"hi","role":"user"}],"temperature":1.0e0}',
    );
    const a = issueCertificate({ ...promptRun, request: { ...written, temperature: 1 } }, key);
    const b = issueCertificate({ ...promptRun, request: reread }, key);
    expect(a.certificate.request_hash).toBe(b.certificate.request_hash);
    const c = issueCertificate({ ...promptRun, request: { ...written, temperature: 0.7 } }, key);
    expect(c.certificate.request_hash).not.toBe(a.certificate.request_hash);
  });

  it("refuses to sign a certificate its mode makes invalid, naming the field", () => {
    const attempt = () => issueCertificate({ ...promptRun, response: null }, key);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow("$.result.response_sha256: is required (not null) when mode is prompt-run");
  });

  it("fills in the attested node's attestation and signs the rest of it", () => {
    const node = unattestedNode(
      "3f0c6f7e-2b4d-4c1a-9a7e-5d2f8b6c1e90",
      null,
      "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      1,
    );
    const issued = issueCertificate({ ...promptRun, node, commitShaRequired: "b".repeat(40) }, key);
    expect(issued.node?.attestation).toEqual({
      commit_sha_required: "b".repeat(40),
      artifact_hash: digestOf(issued.bytes),
      proof_ref: proofLocator(issued.certificate.job_id),
    });
    expect(issued.proof.public_inputs.node_sha256).toBe(nodeContentSha256(node));
    expect(issued.nodeBytes?.equals(canonicalBytes(issued.node))).toBe(true);
  });

  it("names IronClaw's build as a workflow_ref the contract accepts", () => {
    const ref = ironclawWorkflowRef({ name: "ironclaw", version: "0.1.0+local" }, "d".repeat(40));
    expect(parseWorkflowRef(ref)).toEqual({
      owner: "ironclaw",
      repo: "ironclaw",
      path: ".github/workflows/ironclaw-0.1.0-local.yml",
      commit: "d".repeat(40),
    });
  });
});
