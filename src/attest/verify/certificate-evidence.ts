import { type Certificate, certificateSchema, isJsonObject } from "../../contracts/index.js";
import { issuesFromZod } from "../../core/index.js";
import { type EvidenceFile, parseJson } from "./evidence.js";
import { type CheckName, type CheckResult, fail, notRun } from "./report.js";

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

export type Parsed<T> = { value: T } | { error: string; file: string; field?: string };
export function absent(ev: CertificateEvidence, check: CheckName, reason: string): CheckResult {
  return ev.missing === "fail" ? fail(check, reason) : notRun(check, reason);
}

/** A certificate is checked against the contract once, though its checks and its bundles' each read it. */
const readCertificates = new WeakMap<EvidenceFile, Parsed<Certificate>>();

export function readCertificate(file: EvidenceFile): Parsed<Certificate> {
  let read = readCertificates.get(file);
  if (read === undefined) {
    read = validCertificate(file);
    readCertificates.set(file, read);
  }
  return read;
}

function validCertificate(file: EvidenceFile): Parsed<Certificate> {
  const json = parseJson(file);
  if ("error" in json) return { error: json.error, file: file.file };
  const parsed = certificateSchema.safeParse(json.value);
  if (parsed.success) return { value: parsed.data };
  const [first] = issuesFromZod(parsed.error);
  return { error: `${file.file}: ${first?.path}: ${first?.message}`, file: file.file, field: first?.path };
}

export function readObject(file: EvidenceFile): Parsed<Record<string, unknown>> {
  const json = parseJson(file);
  if ("error" in json) return { error: json.error, file: file.file };
  if (!isJsonObject(json.value))
    return { error: `${file.file} is not a JSON object`, file: file.file, field: "$" };
  return { value: json.value };
}

export function field(object: unknown, ...path: string[]): unknown {
  let at = object;
  for (const key of path) at = isJsonObject(at) ? at[key] : undefined;
  return at;
}
