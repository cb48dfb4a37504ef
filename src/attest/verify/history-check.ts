import { isJsonObject } from "../../contracts/index.js";
import {
  HISTORY_BUNDLE_FILE,
  HISTORY_DIR,
  HISTORY_MANIFEST_FILE,
  historyManifestSchema,
} from "../history/index.js";
import { digestOf } from "../sign/proof.js";
import { type Evidence, type EvidenceFile, parseJson } from "./evidence.js";
import { type CheckResult, fail, pass } from "./report.js";

const MANIFEST = `${HISTORY_DIR}/${HISTORY_MANIFEST_FILE}`;

/**
 * A brain history an export carries (history/): history.bundle and redactions.json hash, as bytes on disk, to
 * the digests history.json restates (bundle_hash, as for a state bundle no certificate names), and every node
 * history.json lists is in nodes/, where the chain check reads it (chain). No history/, nothing reported.
 */
export function checkHistory(evidence: Evidence): CheckResult[] {
  const files = evidence.history;
  if (files === undefined) return [];
  if (files.manifest === undefined)
    return [
      fail("bundle_hash", `${HISTORY_DIR}/ holds no ${HISTORY_MANIFEST_FILE} stating its digests`, {
        file: MANIFEST,
      }),
    ];
  const json = parseJson(files.manifest);
  if ("error" in json) return [fail("bundle_hash", json.error, { file: MANIFEST })];
  const parsed = historyManifestSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = `$.${issue?.path.join(".") ?? ""}`;
    return [fail("bundle_hash", `${MANIFEST}: ${field}: ${issue?.message}`, { file: MANIFEST, field })];
  }
  const manifest = parsed.data;
  const results = [
    compare(files.bundle, `${HISTORY_DIR}/${HISTORY_BUNDLE_FILE}`, manifest.bundle_sha256, "$.bundle_sha256"),
  ];
  if (files.bundle !== undefined && files.bundle.bytes.length !== manifest.size_bytes)
    results.push(
      fail(
        "bundle_hash",
        `${HISTORY_DIR}/${HISTORY_BUNDLE_FILE} is ${files.bundle.bytes.length} bytes, but ${MANIFEST} $.size_bytes says ${manifest.size_bytes}`,
        { file: MANIFEST, field: "$.size_bytes" },
      ),
    );
  if (manifest.redactions_sha256 !== null || files.redactions !== undefined)
    results.push(
      compare(
        files.redactions,
        `${HISTORY_DIR}/redactions.json`,
        manifest.redactions_sha256,
        "$.redactions_sha256",
      ),
    );
  const inFolder = new Set(evidence.nodes.flatMap(nodeIdOf));
  const missing = manifest.node_ids.filter((id) => !inFolder.has(id));
  if (!manifest.node_ids.includes(manifest.head_node_id))
    results.push(
      fail("chain", `${MANIFEST}: $.head_node_id is not one of $.node_ids`, {
        file: MANIFEST,
        field: "$.head_node_id",
      }),
    );
  else if (missing.length > 0)
    results.push(
      fail(
        "chain",
        `${MANIFEST} names node ${missing[0]}${missing.length > 1 ? ` and ${missing.length - 1} more` : ""}, not in nodes/`,
        {
          file: MANIFEST,
          field: "$.node_ids",
        },
      ),
    );
  else results.push(pass("chain", `${MANIFEST}: its ${manifest.node_ids.length} nodes are in nodes/`));
  return results;
}

function compare(
  file: EvidenceFile | undefined,
  name: string,
  claimed: string | null,
  field: string,
): CheckResult {
  if (file === undefined)
    return fail("bundle_hash", `${name} is missing (${MANIFEST} ${field})`, { file: name });
  const actual = digestOf(file.bytes);
  if (actual !== claimed)
    return fail("bundle_hash", `${name} hashes to ${actual}, but ${MANIFEST} ${field} says ${claimed}`, {
      file: name,
      field,
    });
  return pass("bundle_hash", `${name} hashes to the ${field.slice(2)} ${MANIFEST} gives`);
}

function nodeIdOf(file: EvidenceFile): string[] {
  const json = parseJson(file);
  const id = "value" in json && isJsonObject(json.value) ? json.value.node_id : undefined;
  return typeof id === "string" ? [id] : [];
}
