import { readFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { type Certificate, normalizeSha256 } from "../../contracts/index.js";
import { digestOf } from "../sign/proof.js";
import { type CheckResult, fail, pass } from "./report.js";

const ARTIFACT = "artifact://";

/**
 * The reply a certificate names, when the folder keeps it (`artifact://responses/<job_id>.txt`): its bytes must
 * hash to the signed `result.response_sha256`, or the text a person reads beside the certificate is not the one
 * that was certified. A reply kept elsewhere (`s3://`, `gh-artifact://`…) cannot be checked offline and adds no
 * check; one the folder should hold and does not fails.
 */
export function checkResponse(
  certificate: Certificate,
  certificateFile: string,
  root: string,
): CheckResult[] {
  const locator = certificate.result.response_locator;
  const expected = certificate.result.response_sha256;
  if (typeof locator !== "string" || !locator.startsWith(ARTIFACT) || typeof expected !== "string") return [];
  const relative = normalize(locator.slice(ARTIFACT.length));
  if (relative.startsWith("..") || relative.startsWith("/"))
    return [
      fail("response_hash", `${certificateFile}: $.result.response_locator ${locator} leaves the folder`, {
        file: certificateFile,
        field: "$.result.response_locator",
      }),
    ];
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, relative));
  } catch {
    return [
      fail("response_hash", `${certificateFile} names ${relative}, which is not in the folder`, {
        file: relative,
        field: "$.result.response_locator",
      }),
    ];
  }
  const actual = digestOf(bytes);
  if (normalizeSha256(expected) !== actual)
    return [
      fail(
        "response_hash",
        `${relative} hashes to ${actual}, but ${certificateFile}'s $.result.response_sha256 is ${expected}`,
        { file: relative, field: "$.result.response_sha256" },
      ),
    ];
  return [pass("response_hash", `${relative} is the reply ${certificateFile} certifies`)];
}
