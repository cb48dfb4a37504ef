import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type CheckResult, type VerifyReport, verifyEvidence } from "../../attest/index.js";
import { rfc3339 } from "../../contracts/index.js";
import { println, UsageError } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";

export const verifyCommand = defineCommand({
  name: "verify",
  summary: "check an evidence folder or a certificate offline: proof, commit pin, artifact hash, mode fields",
  description: `Runs seed 002's four checks on every certificate, each reported by name with its reason:
  proof          the host's Ed25519 signature over the certificate's digest and public inputs, for public-key.pem
  commit_pin     the node's commit_sha_required equals the certificate's and the proof's pin
  artifact_hash  sha256 of the certificate's exact bytes equals the node's attestation.artifact_hash
  mode_fields    the mode's required fields, and replay identifiers present and not expired
On a folder also bundle_hash (each state bundle a certificate names hashes to its bundle_sha256; a brain
history's history.bundle and redactions.json to what history/history.json restates) and chain (every node valid,
every parent present, no cycle, immutable linkage unchanged between versions of a node).
A certificate outside an evidence folder has no proof, key or node beside it: those checks are reported as not run.
Needs nothing but the files. Exit code 0 when every check passes, 1 when any fails or could not run, 2 on usage
errors.`,
  positionals: [
    {
      name: "path",
      required: true,
      valueName: "file|dir",
      description: "an evidence folder or a certificate",
    },
  ],
  options: [
    jsonOption(
      'the report: { "target", "at", "ok", "certificates": [{ "file", "job_id", "checks" }], "chain" }',
    ),
    {
      name: "at",
      type: "string",
      valueName: "RFC3339",
      description: "judge replay expiry as of this time instead of now (e.g. 2026-11-27T12:00:00Z)",
    },
  ],
  async run({ options, args }, io) {
    const target = resolve(io.cwd, args.path);
    if (!existsSync(target))
      throw new UsageError(`${args.path}: no such file or folder`, { showUsage: false });
    let at: Date | undefined;
    if (options.at !== undefined) {
      if (!rfc3339.safeParse(options.at).success)
        throw new UsageError(
          `--at: must be an RFC 3339 time like 2026-11-27T12:00:00Z, not '${options.at}'`,
          {
            showUsage: false,
          },
        );
      at = new Date(options.at);
    }
    const report = verifyEvidence(target, at === undefined ? {} : { at });
    if (options.json) println(io.stdout, JSON.stringify(report));
    else printReport(report, io.stdout);
    return report.ok ? 0 : 1;
  },
});

const MARK = { pass: "pass", fail: "FAIL", not_run: "not run" } as const;

function printReport(report: VerifyReport, out: NodeJS.WritableStream): void {
  const line = (who: string, check: CheckResult) =>
    out.write(`${who}  ${check.check.padEnd(13)} ${MARK[check.status].padEnd(7)} ${check.reason}\n`);
  for (const certificate of report.certificates)
    for (const check of certificate.checks) line(certificate.job_id, check);
  for (const check of report.chain) line("nodes", check);
  const checks = [...report.certificates.flatMap((c) => c.checks), ...report.chain];
  const failed = checks.filter((c) => c.status === "fail").length;
  const notRun = checks.filter((c) => c.status === "not_run").length;
  const count = report.certificates.length;
  const what = `${count} certificate${count === 1 ? "" : "s"}, ${checks.length} checks as of ${report.at}`;
  if (count === 0) out.write(`not verified: no certificate found in ${report.target}\n`);
  else if (report.ok) out.write(`verified: ${what}, all pass\n`);
  else out.write(`NOT verified: ${what}: ${failed} failed, ${notRun} not run\n`);
}
