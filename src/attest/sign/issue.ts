import { randomBytes, randomUUID } from "node:crypto";
import {
  type BranchNode,
  type Certificate,
  type CertificateMode,
  certificateSchema,
} from "../../contracts/index.js";
import { canonicalBytes, hashCanonical, issuesFromZod, ValidationError } from "../../core/index.js";
import type { HostKey } from "./host-key.js";
import {
  digestOf,
  nodeContentSha256,
  PROOF_TYPE,
  type Proof,
  publicInputsOf,
  signedMessage,
} from "./proof.js";

/** What a request is certified as: `request_hash` is the canonical hash of exactly this object. */
export interface CertifiedRequest {
  messages: readonly unknown[];
  profile: string | null;
  model: string;
  tool_policy: unknown;
  [more: string]: unknown;
}

export interface IssueInput {
  /** Defaults to a new random UUID. */
  jobId?: string;
  request: CertifiedRequest;
  mode: CertificateMode;
  parentState?: { state_id: string; bundle_sha256: string; ratchet_step: number } | null;
  newState?: { state_id: string; bundle_sha256: string; bundle_manifest_sha256: string } | null;
  /** The response's digest (`sha256:<hex>` of its bytes, see `digestOf`) and where it is kept. */
  response?: { sha256: string; locator: string } | null;
  runtime: { workflowRef: string; startedAt: string; finishedAt: string };
  /** The brain commit of a chat turn, the merge commit of an order; null when nothing is pinned. */
  commitShaRequired?: string | null;
  /** The node this certificate attests: its content is signed and it comes back with `attestation` filled in. */
  node?: BranchNode;
  /** How long the certificate may be presented (replay expiry); 30 days by default. */
  replayTtlSeconds?: number;
  now?: Date;
}

export interface IssuedCertificate {
  certificate: Certificate;
  /** The certificate's canonical bytes: write exactly these to `certificates/<job_id>.json`. */
  bytes: Buffer;
  proof: Proof;
  /** The proof's canonical bytes, for `proofs/<job_id>.json`. */
  proofBytes: Buffer;
  /** The attested node with `attestation` filled in, and its canonical bytes, when a node was given. */
  node?: BranchNode;
  nodeBytes?: Buffer;
}

const DEFAULT_REPLAY_TTL_SECONDS = 30 * 24 * 3600;

/** Where a proof sits in an evidence folder, as a node's `attestation.proof_ref` names it. */
export function proofLocator(jobId: string): string {
  return `artifact://proofs/${jobId}.json`;
}

/**
 * Builds a loom-agent-run-v1 certificate, checks it against the contract (a certificate that would not validate
 * is never signed), and signs its digest and public inputs with the host key.
 */
export function issueCertificate(input: IssueInput, key: HostKey): IssuedCertificate {
  const now = input.now ?? new Date();
  const ttl = input.replayTtlSeconds ?? DEFAULT_REPLAY_TTL_SECONDS;
  const draft = {
    type: "loom-agent-run-v1",
    job_id: input.jobId ?? randomUUID(),
    request_hash: hashCanonical(input.request),
    mode: input.mode,
    parent_state: input.parentState ?? null,
    result: {
      response_sha256: input.response?.sha256 ?? null,
      response_locator: input.response?.locator ?? null,
      new_state: input.newState ?? null,
    },
    runtime: {
      workflow_ref: input.runtime.workflowRef,
      runner_class: "self-hosted",
      started_at: input.runtime.startedAt,
      finished_at: input.runtime.finishedAt,
    },
    timestamp: now.toISOString(),
    replay: {
      nonce: randomBytes(16).toString("base64url"),
      expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
    },
    commit_sha_required: input.commitShaRequired ?? null,
  };
  const parsed = certificateSchema.safeParse(draft);
  if (!parsed.success) throw new ValidationError("certificate", issuesFromZod(parsed.error));
  const certificate = parsed.data;
  const bytes = canonicalBytes(certificate);
  const certificateSha256 = digestOf(bytes);
  const nodeSha256 = input.node === undefined ? undefined : nodeContentSha256(input.node);
  const publicInputs = publicInputsOf(certificate, nodeSha256);
  const proof: Proof = {
    type: PROOF_TYPE,
    key_id: key.keyId,
    certificate_sha256: certificateSha256,
    public_inputs: publicInputs,
    signature: key.sign(signedMessage(certificateSha256, publicInputs)).toString("base64"),
  };
  const issued: IssuedCertificate = { certificate, bytes, proof, proofBytes: canonicalBytes(proof) };
  if (input.node === undefined) return issued;
  const node: BranchNode = {
    ...input.node,
    attestation: {
      ...input.node.attestation,
      commit_sha_required: certificate.commit_sha_required ?? null,
      artifact_hash: certificateSha256,
      proof_ref: proofLocator(certificate.job_id),
    },
  };
  return { ...issued, node, nodeBytes: canonicalBytes(node) };
}

/**
 * IronClaw's own build as a certificate's `workflow_ref`: the contract takes `owner/repo/.github/workflows/
 * <file>.yml@<40-hex commit>`, so the package name stands for owner and repo, the version names the file, and the
 * commit is the checkout the host runs.
 */
export function ironclawWorkflowRef(pkg: { name: string; version: string }, commit: string): string {
  const file = `${pkg.name}-${pkg.version}`.replace(/[^A-Za-z0-9._-]/g, "-");
  return `${pkg.name}/${pkg.name}/.github/workflows/${file}.yml@${commit}`;
}
