import { readFileSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isJsonObject } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { checkBundles, checkUnnamedBundles } from "./bundle-check.js";
import { checkCertificate } from "./certificate-checks.js";
import { readCertificate } from "./certificate-evidence.js";
import { checkChain } from "./chain-check.js";
import { type Evidence, type EvidenceFile, loadEvidence, parseJson } from "./evidence.js";
import { checkHistory } from "./history-check.js";
import { allPass, type CertificateReport, type CheckResult, fail, type VerifyReport } from "./report.js";
import { checkResponse } from "./response-check.js";

export interface VerifyOptions {
  /** Judge replay expiry as of this instant (default: now). */
  at?: Date;
}

/**
 * Verifies an evidence folder, or one certificate. A folder: every certificate with its proof and node, each
 * bundle a certificate names, and the node chain. A certificate inside a folder's `certificates/`: that one,
 * against the folder's proof, key, node and bundles. A certificate anywhere else: what can be checked without
 * them, each other check reported as not run.
 */
export function verifyEvidence(target: string, options: VerifyOptions = {}): VerifyReport {
  const at = options.at ?? new Date();
  const stats = statSync(target);
  let certificates: CertificateReport[];
  let chain: CheckResult[] = [];
  if (stats.isDirectory()) {
    const evidence = loadEvidence(target);
    const nodes = attestingNodes(evidence);
    certificates = [...evidence.certificates.keys()].map((jobId) => verifyOne(evidence, nodes, jobId, at));
    chain = [
      ...checkChain(evidence.nodes),
      ...orphanAttestations(evidence),
      ...checkUnnamedBundles(namedStates(evidence), evidence.bundles),
      ...checkHistory(evidence),
    ];
  } else if (basename(dirname(target)) === "certificates") {
    const jobId = basename(target).replace(/\.json$/, "");
    const evidence = loadEvidence(dirname(dirname(target)), jobId);
    certificates = [verifyOne(evidence, attestingNodes(evidence), jobId, at)];
  } else {
    const bytes = readFileSync(target);
    const certificate = { file: target, bytes };
    const jobId = jobIdInside(certificate) ?? basename(target).replace(/\.json$/, "");
    certificates = [
      {
        file: target,
        job_id: jobId,
        checks: checkCertificate({ jobId, certificate, missing: "not_run", at }),
      },
    ];
  }
  const ok = certificates.every((c) => allPass(c.checks)) && allPass(chain) && certificates.length > 0;
  return { target, at: at.toISOString(), ok, certificates, chain };
}

function verifyOne(
  evidence: Evidence,
  nodes: ReadonlyMap<string, EvidenceFile>,
  jobId: string,
  at: Date,
): CertificateReport {
  const certificate = evidence.certificates.get(jobId);
  if (certificate === undefined)
    throw new InvalidInputError(`certificates/${jobId}.json`, "is not a file of this evidence folder");
  const checks = checkCertificate({
    jobId,
    certificate,
    proof: evidence.proofs.get(jobId),
    publicKey: evidence.publicKey,
    node: nodes.get(jobId),
    missing: "fail",
    at,
  });
  const valid = readCertificate(certificate);
  if ("value" in valid)
    checks.push(
      ...checkBundles(valid.value, certificate.file, evidence.bundles),
      ...checkResponse(valid.value, certificate.file, evidence.root),
    );
  return { file: certificate.file, job_id: jobId, checks };
}

const PROOF_REF = /\/proofs\/([^/]+)\.json$/;

/** Each job's node: the first node file (in name order) whose `attestation.proof_ref` names the job's proof. */
function attestingNodes(evidence: Evidence): Map<string, EvidenceFile> {
  const byJob = new Map<string, EvidenceFile>();
  for (const node of evidence.nodes) {
    const jobId = provedJob(node);
    if (jobId !== undefined && !byJob.has(jobId)) byJob.set(jobId, node);
  }
  return byJob;
}

function provedJob(node: EvidenceFile): string | undefined {
  const json = parseJson(node);
  if (!("value" in json) || !isJsonObject(json.value)) return undefined;
  const attestation = json.value.attestation;
  const ref = isJsonObject(attestation) ? attestation.proof_ref : undefined;
  return typeof ref === "string" ? PROOF_REF.exec(ref)?.[1] : undefined;
}

/** A node that attests a certificate the folder does not hold cannot be verified: the chain has a hole. */
function orphanAttestations(evidence: Evidence): CheckResult[] {
  return evidence.nodes.flatMap((node) => {
    const jobId = provedJob(node);
    if (jobId === undefined || evidence.certificates.has(jobId)) return [];
    return [
      fail("chain", `${node.file} attests certificates/${jobId}.json, which is not in the folder`, {
        file: node.file,
        field: "$.attestation.proof_ref",
      }),
    ];
  });
}

/** The states the folder's certificates name, before or after; a certificate that does not parse names none. */
function namedStates(evidence: Evidence): Set<string> {
  const named = new Set<string>();
  for (const file of evidence.certificates.values()) {
    const parsed = readCertificate(file);
    if (!("value" in parsed)) continue;
    for (const state of [parsed.value.parent_state, parsed.value.result.new_state])
      if (state) named.add(state.state_id);
  }
  return named;
}

function jobIdInside(file: EvidenceFile): string | undefined {
  const json = parseJson(file);
  const jobId = "value" in json && isJsonObject(json.value) ? json.value.job_id : undefined;
  return typeof jobId === "string" ? jobId : undefined;
}
