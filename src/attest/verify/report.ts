/**
 * The checks `verify` runs, each reported by name. The first four are seed 002 §5's "verification minimum
 * checks" in its order; `bundle_hash` and `chain` are what a whole evidence folder adds (§4: hash exactly the
 * uploaded bytes; do not mutate immutable node linkage); `response_hash` checks a reply the folder keeps against
 * the digest its certificate signs.
 */
export const CHECK_NAMES = [
  "proof",
  "commit_pin",
  "artifact_hash",
  "mode_fields",
  "bundle_hash",
  "response_hash",
  "chain",
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

/** `not_run`: the evidence a check needs is not there (a lone certificate has no node); it is not a pass. */
export type CheckStatus = "pass" | "fail" | "not_run";

export interface CheckResult {
  check: CheckName;
  status: CheckStatus;
  /** Why, in a sentence: what matched, or which file and field did not. */
  reason: string;
  /** The file the reason is about, relative to the folder verified. */
  file?: string;
  /** The JSON path of the field at fault, when one is. */
  field?: string;
}

export interface CertificateReport {
  /** The certificate's file, relative to the folder verified (or as given). */
  file: string;
  /** The job id its file name gives (`certificates/<job_id>.json`). */
  job_id: string;
  checks: CheckResult[];
}

export interface VerifyReport {
  /** What was verified, as given. */
  target: string;
  /** The instant replay expiry was judged at (RFC 3339). */
  at: string;
  /** True only when every check of every certificate and of the chain passed. */
  ok: boolean;
  certificates: CertificateReport[];
  /** Folder-wide checks: node files, parent links, cycles, immutable linkage across versions of a node. */
  chain: CheckResult[];
}

type Detail = { file?: string | undefined; field?: string | undefined };

function result(check: CheckName, status: CheckStatus, reason: string, detail: Detail): CheckResult {
  return {
    check,
    status,
    reason,
    ...(detail.file === undefined ? {} : { file: detail.file }),
    ...(detail.field === undefined ? {} : { field: detail.field }),
  };
}

export const pass = (check: CheckName, reason: string, detail: Detail = {}) =>
  result(check, "pass", reason, detail);
export const fail = (check: CheckName, reason: string, detail: Detail = {}) =>
  result(check, "fail", reason, detail);
export const notRun = (check: CheckName, reason: string, detail: Detail = {}) =>
  result(check, "not_run", reason, detail);

/** Whether every check passed: a failure or a check that could not run both make a report not ok. */
export function allPass(checks: readonly CheckResult[]): boolean {
  return checks.every((c) => c.status === "pass");
}
