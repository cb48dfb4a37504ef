import { type Certificate, normalizeSha256 } from "../../contracts/index.js";
import { digestOf } from "../sign/proof.js";
import {
  absent,
  type CertificateEvidence,
  field,
  type Parsed,
  readCertificate,
  readObject,
} from "./certificate-evidence.js";
import { parseJson } from "./evidence.js";
import { checkProof } from "./proof-check.js";
import { type CheckResult, fail, pass } from "./report.js";

/** The four checks of seed 002 §5, in its order. */
export function checkCertificate(ev: CertificateEvidence): CheckResult[] {
  const certificate = readCertificate(ev.certificate);
  const node = ev.node === undefined ? undefined : readObject(ev.node);
  return [
    checkProof(ev, certificate, node),
    checkCommitPin(ev, certificate, node),
    checkArtifactHash(ev, node),
    checkModeFields(ev, certificate),
  ];
}

/** §5.2: the commit the node requires is the one the certificate and its proof pin. */
function checkCommitPin(
  ev: CertificateEvidence,
  certificate: Parsed<Certificate>,
  node: Parsed<Record<string, unknown>> | undefined,
): CheckResult {
  if (node === undefined) return absent(ev, "commit_pin", `no node in nodes/ names proofs/${ev.jobId}.json`);
  if ("error" in node) return fail("commit_pin", node.error, { file: node.file });
  if ("error" in certificate)
    return fail("commit_pin", certificate.error, { file: certificate.file, field: certificate.field });
  const nodeFile = ev.node?.file;
  const required = field(node.value, "attestation", "commit_sha_required") ?? null;
  const pinned = certificate.value.commit_sha_required ?? null;
  if (required !== pinned)
    return fail(
      "commit_pin",
      `${nodeFile}: $.attestation.commit_sha_required is ${JSON.stringify(required)}, the certificate pins ${JSON.stringify(pinned)}`,
      { file: nodeFile, field: "$.attestation.commit_sha_required" },
    );
  const proof = ev.proof === undefined ? undefined : parseJson(ev.proof);
  const signed =
    proof !== undefined && "value" in proof
      ? field(proof.value, "public_inputs", "commit_sha_required")
      : undefined;
  if (signed !== undefined && signed !== pinned)
    return fail(
      "commit_pin",
      `${ev.proof?.file}: $.public_inputs.commit_sha_required is ${JSON.stringify(signed)}, the node requires ${JSON.stringify(required)}`,
      { file: ev.proof?.file, field: "$.public_inputs.commit_sha_required" },
    );
  return pass(
    "commit_pin",
    pinned === null
      ? "no commit pinned by the node, the certificate or the proof"
      : `node, certificate and proof pin ${pinned}`,
  );
}

/** §5.3: sha256 of the certificate's exact bytes is the node's `attestation.artifact_hash`. */
function checkArtifactHash(
  ev: CertificateEvidence,
  node: Parsed<Record<string, unknown>> | undefined,
): CheckResult {
  if (node === undefined)
    return absent(ev, "artifact_hash", `no node in nodes/ names proofs/${ev.jobId}.json`);
  if ("error" in node) return fail("artifact_hash", node.error, { file: node.file });
  const nodeFile = ev.node?.file;
  const recorded = field(node.value, "attestation", "artifact_hash");
  const actual = digestOf(ev.certificate.bytes);
  if (typeof recorded !== "string" || normalizeSha256(recorded) !== actual)
    return fail(
      "artifact_hash",
      `${nodeFile}: $.attestation.artifact_hash is ${JSON.stringify(recorded)}, but ${ev.certificate.file} hashes to ${actual}`,
      { file: nodeFile, field: "$.attestation.artifact_hash" },
    );
  return pass("artifact_hash", `sha256 of ${ev.certificate.file} is ${nodeFile}'s artifact_hash`);
}

/** §5.4: the mode's required fields, and replay identifiers present and unexpired at `at`. */
function checkModeFields(ev: CertificateEvidence, certificate: Parsed<Certificate>): CheckResult {
  if ("error" in certificate)
    return fail("mode_fields", certificate.error, { file: certificate.file, field: certificate.field });
  const at = { file: ev.certificate.file };
  const cert = certificate.value;
  const nonce = cert.replay?.nonce;
  if (typeof nonce !== "string" || nonce === "")
    return fail("mode_fields", `${ev.certificate.file}: $.replay.nonce is required: a replay identifier`, {
      ...at,
      field: "$.replay.nonce",
    });
  const expiresAt = cert.replay?.expires_at;
  const expiry = typeof expiresAt === "string" ? Date.parse(expiresAt) : Number.NaN;
  if (Number.isNaN(expiry))
    return fail("mode_fields", `${ev.certificate.file}: $.replay.expires_at is required: an RFC 3339 time`, {
      ...at,
      field: "$.replay.expires_at",
    });
  if (expiry <= ev.at.getTime())
    return fail(
      "mode_fields",
      `${ev.certificate.file}: $.replay.expires_at ${expiresAt} has passed (verified as of ${ev.at.toISOString()})`,
      { ...at, field: "$.replay.expires_at" },
    );
  return pass("mode_fields", `${cert.mode} fields present; replay nonce present, expires ${expiresAt}`);
}
