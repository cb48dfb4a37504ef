import { type Certificate, normalizeSha256 } from "../../contracts/index.js";
import { BUNDLE_FILE } from "../bundle/index.js";
import { digestOf } from "../sign/proof.js";
import { type EvidenceFile, parseJson, type StateBundle } from "./evidence.js";
import { type CheckResult, fail, pass } from "./report.js";

/**
 * Seed 002 §4 "hash exactly uploaded bytes": each state bundle a certificate names hashes, as encrypted bytes on
 * disk, to the `bundle_sha256` the certificate gives, and to the one its result.json and bundle_locator_next.json
 * restate. The produced state's bundle must be there; the parent's may predate the folder and is checked when
 * present. Nothing to check, nothing reported.
 */
export function checkBundles(
  certificate: Certificate,
  file: string,
  bundles: ReadonlyMap<string, StateBundle>,
): CheckResult[] {
  const named = [
    { state: certificate.result.new_state, field: "$.result.new_state.bundle_sha256", required: true },
    { state: certificate.parent_state, field: "$.parent_state.bundle_sha256", required: false },
  ];
  const results: CheckResult[] = [];
  for (const { state, field, required } of named) {
    if (state === null || state === undefined) continue;
    const bundle = bundles.get(state.state_id);
    const encrypted = bundle?.encrypted;
    const where = `bundles/${state.state_id}/${BUNDLE_FILE}`;
    if (encrypted === undefined) {
      if (required)
        results.push(fail("bundle_hash", `${where} is missing (${file} ${field})`, { file: where }));
      continue;
    }
    results.push(
      compare(encrypted, normalizeSha256(state.bundle_sha256), `${file} ${field}`, bundle?.sidecars ?? []),
    );
  }
  return results;
}

/**
 * The bundles no certificate names (a brain sealed by export, which no chat turn's certificate points at: a turn
 * seals no bundle): each hashes, as encrypted bytes on disk, to the digest its result.json and
 * bundle_locator_next.json restate, so a changed byte of one is caught even though no signature covers it.
 */
export function checkUnnamedBundles(
  named: ReadonlySet<string>,
  bundles: ReadonlyMap<string, StateBundle>,
): CheckResult[] {
  return [...bundles.values()].flatMap((bundle) => {
    if (named.has(bundle.state_id) || bundle.encrypted === undefined) return [];
    const claims = bundle.sidecars.flatMap((sidecar) => {
      const json = parseJson(sidecar);
      const restated =
        "value" in json ? (json.value as { bundle_sha256?: unknown } | null)?.bundle_sha256 : 1;
      return restated === undefined || restated === null ? [] : [sidecar.file];
    });
    if (claims.length === 0)
      return [
        fail(
          "bundle_hash",
          `${bundle.encrypted.file}: no result.json or bundle_locator_next.json states its digest`,
          {
            file: bundle.encrypted.file,
          },
        ),
      ];
    return [
      compare(bundle.encrypted, digestOf(bundle.encrypted.bytes), claims.join(" and "), bundle.sidecars),
    ];
  });
}

function compare(
  encrypted: EvidenceFile,
  claimed: string,
  claimant: string,
  sidecars: EvidenceFile[],
): CheckResult {
  const actual = digestOf(encrypted.bytes);
  if (actual !== claimed)
    return fail("bundle_hash", `${encrypted.file} hashes to ${actual}, but ${claimant} says ${claimed}`, {
      file: encrypted.file,
    });
  for (const sidecar of sidecars) {
    const json = parseJson(sidecar);
    if ("error" in json) return fail("bundle_hash", json.error, { file: sidecar.file });
    const restated = (json.value as { bundle_sha256?: unknown } | null)?.bundle_sha256;
    if (restated === undefined || restated === null) continue;
    if (typeof restated !== "string" || normalizeSha256(restated) !== actual)
      return fail(
        "bundle_hash",
        `${sidecar.file}: $.bundle_sha256 is ${JSON.stringify(restated)}, but ${encrypted.file} hashes to ${actual}`,
        { file: sidecar.file, field: "$.bundle_sha256" },
      );
  }
  return pass("bundle_hash", `${encrypted.file} hashes to the bundle_sha256 ${claimant} gives`);
}
