import { verify as verifySignature } from "node:crypto";
import { type Certificate, certificateSchema, isJsonObject, normalizeSha256 } from "../../contracts/index.js";
import { issuesFromZod } from "../../core/index.js";
import { proofLocator } from "../sign/issue.js";
import { digestOf, nodeContentSha256, proofSchema, publicInputsOf, signedMessage } from "../sign/proof.js";
import { keyIdOf, parsePublicKeyPem } from "../sign/public-key.js";
import { type EvidenceFile, parseJson } from "./evidence.js";
import { type CheckName, type CheckResult, fail, notRun, pass } from "./report.js";

/** One certificate and what the folder holds for it. */
export interface CertificateEvidence {
  jobId: string;
  certificate: EvidenceFile;
  proof?: EvidenceFile | undefined;
  publicKey?: EvidenceFile | undefined;
  /** The node whose `attestation.proof_ref` names this job's proof. */
  node?: EvidenceFile | undefined;
  /** In an evidence folder missing evidence fails; for a lone certificate the check could not run. */
  missing: "fail" | "not_run";
  at: Date;
}

type Parsed<T> = { value: T } | { error: string; file: string; field?: string };

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

function absent(ev: CertificateEvidence, check: CheckName, reason: string): CheckResult {
  return ev.missing === "fail" ? fail(check, reason) : notRun(check, reason);
}

function readCertificate(file: EvidenceFile): Parsed<Certificate> {
  const json = parseJson(file);
  if ("error" in json) return { error: json.error, file: file.file };
  const parsed = certificateSchema.safeParse(json.value);
  if (parsed.success) return { value: parsed.data };
  const [first] = issuesFromZod(parsed.error);
  return { error: `${file.file}: ${first?.path}: ${first?.message}`, file: file.file, field: first?.path };
}

function readObject(file: EvidenceFile): Parsed<Record<string, unknown>> {
  const json = parseJson(file);
  if ("error" in json) return { error: json.error, file: file.file };
  if (!isJsonObject(json.value))
    return { error: `${file.file} is not a JSON object`, file: file.file, field: "$" };
  return { value: json.value };
}

function field(object: unknown, ...path: string[]): unknown {
  let at = object;
  for (const key of path) at = isJsonObject(at) ? at[key] : undefined;
  return at;
}

/** §5.1: the signature holds for the host's key, over this certificate's digest and its own public inputs. */
function checkProof(
  ev: CertificateEvidence,
  certificate: Parsed<Certificate>,
  node: Parsed<Record<string, unknown>> | undefined,
): CheckResult {
  const proofName = `proofs/${ev.jobId}.json`;
  if (ev.proof === undefined) return absent(ev, "proof", `no proof: ${proofName} is missing`);
  if (ev.publicKey === undefined) return absent(ev, "proof", "no public key: public-key.pem is missing");
  const at = { file: ev.proof.file };
  const json = parseJson(ev.proof);
  if ("error" in json) return fail("proof", json.error, at);
  const parsed = proofSchema.safeParse(json.value);
  if (!parsed.success) {
    const [first] = issuesFromZod(parsed.error);
    return fail("proof", `${ev.proof.file}: ${first?.path}: ${first?.message}`, {
      ...at,
      field: first?.path,
    });
  }
  const proof = parsed.data;
  let publicKey: ReturnType<typeof parsePublicKeyPem>;
  try {
    publicKey = parsePublicKeyPem(ev.publicKey.bytes.toString("utf8"), ev.publicKey.file);
  } catch (error) {
    return fail("proof", (error as Error).message, { file: ev.publicKey.file });
  }
  if (proof.key_id !== keyIdOf(publicKey))
    return fail("proof", `${ev.proof.file}: $.key_id names another key than public-key.pem`, {
      ...at,
      field: "$.key_id",
    });
  const message = signedMessage(proof.certificate_sha256, proof.public_inputs);
  if (!verifySignature(null, message, publicKey, Buffer.from(proof.signature, "base64")))
    return fail(
      "proof",
      `${ev.proof.file}: $.signature does not verify for public-key.pem over its certificate digest and public inputs`,
      { ...at, field: "$.signature" },
    );
  const actual = digestOf(ev.certificate.bytes);
  if (proof.certificate_sha256 !== actual)
    return fail(
      "proof",
      `${ev.proof.file}: $.certificate_sha256 is ${proof.certificate_sha256}, but ${ev.certificate.file} hashes to ${actual}`,
      { ...at, field: "$.certificate_sha256" },
    );
  if ("error" in certificate)
    return fail("proof", `cannot compare public inputs: ${certificate.error}`, {
      file: certificate.file,
      field: certificate.field,
    });
  const expected = publicInputsOf(certificate.value, proof.public_inputs.node_sha256);
  for (const [key, value] of Object.entries(expected)) {
    if (key === "node_sha256") continue;
    const signed = (proof.public_inputs as Record<string, unknown>)[key];
    if (signed !== value)
      return fail(
        "proof",
        `${ev.proof.file}: $.public_inputs.${key} is ${JSON.stringify(signed)}, the certificate says ${JSON.stringify(value)}`,
        { ...at, field: `$.public_inputs.${key}` },
      );
  }
  return checkNodeBinding(ev, proof.public_inputs.node_sha256, node, proofName);
}

/** The signed node content and the node's pointer back to this proof, when a node is at hand. */
function checkNodeBinding(
  ev: CertificateEvidence,
  signedNode: string | undefined,
  node: Parsed<Record<string, unknown>> | undefined,
  proofName: string,
): CheckResult {
  if (node === undefined || ev.node === undefined)
    return pass("proof", `signature valid for the host key; public inputs match ${ev.certificate.file}`);
  if ("error" in node) return fail("proof", node.error, { file: node.file });
  const ref = field(node.value, "attestation", "proof_ref");
  if (ref !== proofLocator(ev.jobId))
    return fail(
      "proof",
      `${ev.node.file}: $.attestation.proof_ref is ${JSON.stringify(ref)}, not ${proofLocator(ev.jobId)}`,
      { file: ev.node.file, field: "$.attestation.proof_ref" },
    );
  if (signedNode !== undefined && nodeContentSha256(node.value) !== signedNode)
    return fail(
      "proof",
      `${ev.node.file} differs from the node content ${proofName} signed ($.public_inputs.node_sha256)`,
      { file: ev.node.file },
    );
  const what = signedNode === undefined ? "" : ` and the content of ${ev.node.file}`;
  return pass(
    "proof",
    `signature valid for the host key over ${ev.certificate.file}${what}; public inputs match`,
  );
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
