import { type KeyObject, verify as verifySignature } from "node:crypto";
import type { Certificate } from "../../contracts/index.js";
import { issuesFromZod } from "../../core/index.js";
import { proofLocator } from "../sign/issue.js";
import { digestOf, nodeContentSha256, proofSchema, publicInputsOf, signedMessage } from "../sign/proof.js";
import { keyIdOf, parsePublicKeyPem } from "../sign/public-key.js";
import { absent, type CertificateEvidence, field, type Parsed } from "./certificate-evidence.js";
import { type EvidenceFile, parseJson } from "./evidence.js";
import { type CheckResult, fail, pass } from "./report.js";

/** §5.1: the signature holds for the host's key, over this certificate's digest and its own public inputs. */
export function checkProof(
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
  const host = hostKeyOf(ev.publicKey);
  if ("error" in host) return fail("proof", host.error, { file: ev.publicKey.file });
  const { publicKey, keyId } = host;
  if (proof.key_id !== keyId)
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

type HostKeyRead = { publicKey: KeyObject; keyId: string } | { error: string };
/** The folder's key is parsed and named once, not once per certificate: that was most of a folder's verify. */
const hostKeys = new WeakMap<EvidenceFile, HostKeyRead>();

function hostKeyOf(file: EvidenceFile): HostKeyRead {
  let read = hostKeys.get(file);
  if (read === undefined) {
    try {
      const publicKey = parsePublicKeyPem(file.bytes.toString("utf8"), file.file);
      read = { publicKey, keyId: keyIdOf(publicKey) };
    } catch (error) {
      read = { error: (error as Error).message };
    }
    hostKeys.set(file, read);
  }
  return read;
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
