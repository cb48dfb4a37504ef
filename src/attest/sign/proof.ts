import { z } from "zod";
import type { Certificate } from "../../contracts/index.js";
import { canonicalBytes, sha256Hex } from "../../core/index.js";

/** The proof file's `type`: IronClaw's Ed25519 signature over a certificate's public inputs. */
export const PROOF_TYPE = "ironclaw-ed25519-proof-v1";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * What the signature binds besides the certificate's digest, in the clear so a verifier can compare them with
 * the certificate and its node without trusting either: the job, the request, the commit pin, the states before
 * and after, and the replay identifiers. `node_sha256`, when present, is the digest of the node the certificate
 * attests with its `attestation` left out (that block is filled in after signing), so a node's content is
 * signed too.
 */
export const publicInputsSchema = z.looseObject({
  job_id: z.string().min(1),
  request_hash: z.string().min(1),
  commit_sha_required: z.string().nullable(),
  parent_state_id: z.string().nullable(),
  new_state_id: z.string().nullable(),
  expires_at: z.string().nullable(),
  nonce: z.string().nullable(),
  node_sha256: z.string().regex(DIGEST, "must be sha256:<64 hex>").optional(),
});

export type PublicInputs = z.output<typeof publicInputsSchema>;

export const proofSchema = z.looseObject({
  type: z.literal(PROOF_TYPE, { error: `must be "${PROOF_TYPE}"` }),
  key_id: z.string().regex(DIGEST, "must be sha256:<64 hex> of the public key's SPKI DER"),
  certificate_sha256: z.string().regex(DIGEST, "must be sha256:<64 hex>"),
  public_inputs: publicInputsSchema,
  signature: z.string().regex(/^[A-Za-z0-9+/]+=*$/, "must be base64"),
});

export type Proof = z.output<typeof proofSchema>;

/** The public inputs a certificate yields; a verifier recomputes them and compares with the proof's. */
export function publicInputsOf(certificate: Certificate, nodeSha256?: string): PublicInputs {
  const replay = certificate.replay ?? {};
  return {
    job_id: certificate.job_id,
    request_hash: certificate.request_hash,
    commit_sha_required: certificate.commit_sha_required ?? null,
    parent_state_id: certificate.parent_state?.state_id ?? null,
    new_state_id: certificate.result.new_state?.state_id ?? null,
    expires_at: typeof replay.expires_at === "string" ? replay.expires_at : null,
    nonce: typeof replay.nonce === "string" ? replay.nonce : null,
    ...(nodeSha256 === undefined ? {} : { node_sha256: nodeSha256 }),
  };
}

/** The exact bytes signed: canonical JSON of the certificate's digest and its public inputs. */
export function signedMessage(certificateSha256: string, publicInputs: PublicInputs): Buffer {
  return canonicalBytes({ certificate_sha256: certificateSha256, public_inputs: publicInputs });
}

/** `sha256:<hex>` of exactly these bytes (seed 002 §4: hash exactly the bytes written). */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The digest a node is signed under: its canonical JSON without `attestation`, which is written after. */
export function nodeContentSha256(node: Record<string, unknown>): string {
  const { attestation: _filledInLater, ...content } = node;
  return digestOf(canonicalBytes(content));
}
