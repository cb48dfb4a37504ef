import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUNDLE_FILE } from "../bundle/index.js";
import {
  HISTORY_BUNDLE_FILE,
  HISTORY_DIR,
  HISTORY_MANIFEST_FILE,
  HISTORY_REDACTIONS_FILE,
} from "../history/index.js";

/** One file of an evidence folder: its path relative to the folder (for reports) and its exact bytes. */
export interface EvidenceFile {
  file: string;
  bytes: Buffer;
}

export interface StateBundle {
  state_id: string;
  /** `bundles/<state_id>/state_bundle.tar.enc`, when present. */
  encrypted?: EvidenceFile;
  /** `result.json` and `bundle_locator_next.json` beside it, when present: they restate the bundle's digest. */
  sidecars: EvidenceFile[];
}

/**
 * An evidence folder as export writes it, read without interpretation:
 *   public-key.pem                 the host's Ed25519 public key (SPKI PEM)
 *   certificates/<job_id>.json     a loom-agent-run-v1 certificate, exactly the bytes that were hashed
 *   proofs/<job_id>.json           its ironclaw-ed25519-proof-v1
 *   nodes/<node_id>.json           agent_swarm-node-v1 nodes, `attestation` pointing at their certificate
 *   bundles/<state_id>/            state_bundle.tar.enc, result.json, next_tokens.json, bundle_locator_next.json
 *   history/                       history.json, history.bundle, redactions.json: the brain's history
 */
export interface Evidence {
  root: string;
  publicKey?: EvidenceFile;
  /** By job id, from the file name `certificates/<job_id>.json`. */
  certificates: Map<string, EvidenceFile>;
  proofs: Map<string, EvidenceFile>;
  nodes: EvidenceFile[];
  bundles: Map<string, StateBundle>;
  /** history/: a brain's history an export carries, when the folder has one. */
  history?: ExportedHistoryFiles;
}

export interface ExportedHistoryFiles {
  manifest?: EvidenceFile;
  bundle?: EvidenceFile;
  redactions?: EvidenceFile;
}

export const PUBLIC_KEY_FILE = "public-key.pem";
const SIDECARS = ["result.json", "bundle_locator_next.json"];

/**
 * Reads every file the layout names; with `onlyJob`, of the certificates and proofs only that job's (one
 * certificate checked inside its folder needs no other). Only regular files count: a symbolic link in a folder
 * someone handed over is not followed out of it.
 */
export function loadEvidence(root: string, onlyJob?: string): Evidence {
  const read = (relative: string): EvidenceFile => ({
    file: relative,
    bytes: readFileSync(join(root, relative)),
  });
  const jsonFiles = (sub: string) => regularFiles(join(root, sub)).filter((name) => name.endsWith(".json"));
  const byStem = (sub: string) =>
    new Map(
      jsonFiles(sub)
        .filter((name) => onlyJob === undefined || name === `${onlyJob}.json`)
        .map((name) => [name.slice(0, -".json".length), read(`${sub}/${name}`)]),
    );
  const bundles = new Map<string, StateBundle>();
  for (const stateId of directories(join(root, "bundles"))) {
    const present = new Set(regularFiles(join(root, "bundles", stateId)));
    const at = (name: string) => `bundles/${stateId}/${name}`;
    bundles.set(stateId, {
      state_id: stateId,
      ...(present.has(BUNDLE_FILE) ? { encrypted: read(at(BUNDLE_FILE)) } : {}),
      sidecars: SIDECARS.filter((name) => present.has(name)).map((name) => read(at(name))),
    });
  }
  return {
    root,
    ...(regularFiles(root).includes(PUBLIC_KEY_FILE) ? { publicKey: read(PUBLIC_KEY_FILE) } : {}),
    certificates: byStem("certificates"),
    proofs: byStem("proofs"),
    nodes: jsonFiles("nodes").map((name) => read(`nodes/${name}`)),
    bundles,
    ...(existsSync(join(root, HISTORY_DIR)) ? { history: historyFiles(root, read) } : {}),
  };
}

function historyFiles(root: string, read: (relative: string) => EvidenceFile): ExportedHistoryFiles {
  const present = new Set(regularFiles(join(root, HISTORY_DIR)));
  const at = (name: string) => (present.has(name) ? read(`${HISTORY_DIR}/${name}`) : undefined);
  const [manifest, bundle, redactions] = [
    HISTORY_MANIFEST_FILE,
    HISTORY_BUNDLE_FILE,
    HISTORY_REDACTIONS_FILE,
  ].map(at);
  return {
    ...(manifest ? { manifest } : {}),
    ...(bundle ? { bundle } : {}),
    ...(redactions ? { redactions } : {}),
  };
}

function entries(dir: string) {
  return existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
}

function regularFiles(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

function directories(dir: string): string[] {
  return entries(dir)
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

type JsonRead = { value: unknown } | { error: string };
/** Each file is parsed once however many checks read it: a node is read by the chain and by its certificate. */
const parsedFiles = new WeakMap<EvidenceFile, JsonRead>();

/** A JSON file's value, or why it is not JSON. Checks only read the value: it is shared between them. */
export function parseJson(file: EvidenceFile): JsonRead {
  let read = parsedFiles.get(file);
  if (read === undefined) {
    try {
      read = { value: JSON.parse(file.bytes.toString("utf8")) };
    } catch (cause) {
      read = { error: `${file.file} is not valid JSON: ${(cause as Error).message}` };
    }
    parsedFiles.set(file, read);
  }
  return read;
}
