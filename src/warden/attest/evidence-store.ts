import { appendFile, copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type IssuedCertificate, PUBLIC_KEY_FILE } from "../../attest/index.js";
import type { BranchNode } from "../../contracts/index.js";
import { canonicalBytes, IronclawError } from "../../core/index.js";

/**
 * Certificates on the host, as evidence folders `ironclaw verify` reads whole, each
 * {public-key.pem, certificates/, proofs/, responses/, nodes/} plus an index, one line per certificate, which
 * verify ignores and the API lists from without opening every certificate:
 *   IRONCLAW_HOME/attest/evidence/<user>/          a user's chat turns, `turns.jsonl`
 *                                                  ({job_id, session_id, timestamp, seq, turn_id, node_id})
 *   IRONCLAW_HOME/attest/run-evidence/<run_id>/   a command run's integrated orders, `orders.jsonl`
 *                                                  ({job_id, run_id, order_id, commit_sha, timestamp})
 */
export const EVIDENCE_DIR = "evidence";
export const TURN_INDEX_FILE = "turns.jsonl";
export const ORDER_INDEX_FILE = "orders.jsonl";
export const EVIDENCE_PARTS = ["certificates", "proofs", "responses", "nodes"] as const;

export function evidenceDirOf(home: string, userId: string): string {
  return join(resolve(home), "attest", EVIDENCE_DIR, userId);
}

/**
 * A command run's evidence folder: one certificate per order of the run that was integrated. Runs have a folder
 * of their own beside `evidence/`, so that no user's name can ever stand for a run's folder or hold one.
 */
export const RUN_EVIDENCE_DIR = "run-evidence";
export function runEvidenceDirOf(home: string, runId: string): string {
  return join(resolve(home), "attest", RUN_EVIDENCE_DIR, runId);
}

export interface CertifiedTurnEntry {
  job_id: string;
  session_id: string;
  timestamp: string;
  /** The conversation entry of the turn's reply: the message the chat shows the certificate on. */
  seq?: number;
  /** The agent's id of the turn, when it gave one. */
  turn_id?: string;
  /** The brain state the turn left, when the history recorded one. */
  node_id?: string | null;
}

export interface CertifiedOrderEntry {
  job_id: string;
  run_id: string;
  order_id: string;
  /** The merge commit the order's INTEGRATED event names, which the certificate pins. */
  commit_sha: string;
  timestamp: string;
}

export interface StoredCertificate {
  dir: string;
  /** The folder's index file (TURN_INDEX_FILE, ORDER_INDEX_FILE) and the line this certificate adds to it. */
  index: { file: string; entry: CertifiedTurnEntry | CertifiedOrderEntry };
  issued: IssuedCertificate;
  response: string;
  /** The history's node of an id: the attested node's ancestors the folder lacks are copied from it. */
  nodeOf?: (nodeId: string) => BranchNode;
  publicKeyPem: string;
}

/**
 * Writes one certificate. The node goes to `nodes/<node_id>.json`, or to `nodes/<node_id>.<job_id>.json` when
 * another certificate already attests that state (a turn that changed nothing, or two turns recorded as one):
 * verify reads both as versions of one node whose linkage must agree. A node file the same job wrote before (a
 * certificate cut off by a stop and issued again) is replaced: it pins the certificate that was never listed.
 */
export async function storeCertificate(stored: StoredCertificate): Promise<void> {
  const { dir, issued } = stored;
  const jobId = issued.certificate.job_id;
  for (const part of EVIDENCE_PARTS) await mkdir(join(dir, part), { recursive: true, mode: 0o700 });
  await writePublicKey(dir, stored.publicKeyPem);
  const nodes = new Set(await readdir(join(dir, "nodes")));
  if (issued.node && issued.nodeBytes) {
    // Verify requires every parent in the folder: states no certificate attests (a job's, an edit's) come as
    // the history holds them, up to the first one the folder already has, oldest written first so that a
    // folder read meanwhile never holds a node without its parent.
    const missing: BranchNode[] = [];
    for (let id = issued.node.parent_node_id; id !== null && stored.nodeOf && !nodes.has(`${id}.json`); ) {
      const parent = stored.nodeOf(id);
      missing.unshift(parent);
      id = parent.parent_node_id;
    }
    for (const parent of missing)
      await writeFile(join(dir, "nodes", `${parent.node_id}.json`), canonicalBytes(parent));
    const id = issued.node.node_id;
    const taken = nodes.has(`${id}.json`) && (await proofJobOf(join(dir, "nodes", `${id}.json`))) !== jobId;
    const name = taken ? `${id}.${jobId}.json` : `${id}.json`;
    await writeFile(join(dir, "nodes", name), issued.nodeBytes);
  }
  await writeFile(join(dir, "responses", `${jobId}.txt`), stored.response);
  await writeFile(join(dir, "proofs", `${jobId}.json`), issued.proofBytes);
  // The certificate last: a listed certificate always has its proof, response and node beside it.
  await writeFile(join(dir, "certificates", `${jobId}.json`), issued.bytes);
  await appendIndex(dir, stored.index.file, stored.index.entry);
}

/** Adds a certificate's line to a folder's index. */
export async function appendIndex(dir: string, file: string, entry: object): Promise<void> {
  await appendFile(join(dir, file), `${JSON.stringify(entry)}\n`);
}

/** The job whose proof a node file names (`attestation.proof_ref`), if any. */
async function proofJobOf(file: string): Promise<string | undefined> {
  try {
    const proof = (JSON.parse(await readFile(file, "utf8")) as BranchNode).attestation.proof_ref;
    return proof === null ? undefined : PROOF_JOB.exec(proof)?.[1];
  } catch {
    return undefined;
  }
}

const PROOF_JOB = /\/proofs\/([^/]+)\.json$/;

/**
 * Copies a user's certified turns into another evidence folder (an export): the certificates there are now, and
 * only the proofs, responses and nodes that belong with them, so a turn being certified meanwhile is left out
 * whole rather than half. Returns how many certificates were copied.
 */
export async function copyCertifiedTurns(from: string, to: string): Promise<number> {
  const names = async (part: string) => readdir(join(from, part)).catch(() => [] as string[]);
  const jobs = (await names("certificates")).filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5));
  if (jobs.length === 0) return 0;
  const copied = new Set(jobs);
  for (const part of EVIDENCE_PARTS) await mkdir(join(to, part), { recursive: true });
  for (const job of jobs) {
    await copyFile(join(from, "responses", `${job}.txt`), join(to, "responses", `${job}.txt`));
    await copyFile(join(from, "proofs", `${job}.json`), join(to, "proofs", `${job}.json`));
  }
  for (const name of await names("nodes")) {
    const bytes = await readFile(join(from, "nodes", name));
    const proof = (JSON.parse(bytes.toString("utf8")) as BranchNode).attestation.proof_ref;
    const job = proof === null ? undefined : PROOF_JOB.exec(proof)?.[1];
    if (job === undefined || copied.has(job)) await writeFile(join(to, "nodes", name), bytes);
  }
  // The certificates last, as the warden writes them: each one lands beside its proof, response and node.
  for (const job of jobs)
    await copyFile(join(from, "certificates", `${job}.json`), join(to, "certificates", `${job}.json`));
  return jobs.length;
}

/** The user's certified turns, newest first. */
export function listCertifiedTurns(dir: string): Promise<CertifiedTurnEntry[]> {
  return readIndex<CertifiedTurnEntry>(dir, TURN_INDEX_FILE);
}

/** A run's certified orders, newest first. */
export function listCertifiedOrders(dir: string): Promise<CertifiedOrderEntry[]> {
  return readIndex<CertifiedOrderEntry>(dir, ORDER_INDEX_FILE);
}

async function readIndex<T>(dir: string, file: string): Promise<T[]> {
  const text = await readFile(join(dir, file), "utf8").catch(() => "");
  const entries: T[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      entries.push(JSON.parse(line) as T);
    } catch {
      // A line cut short by a crash mid-append names no certificate.
    }
  }
  return entries.reverse();
}

/** The key a folder's certificates were signed with; a folder of another key is refused, never mixed. */
async function writePublicKey(dir: string, pem: string): Promise<void> {
  const file = join(dir, PUBLIC_KEY_FILE);
  const existing = await readFile(file, "utf8").catch(() => undefined);
  if (existing === undefined) await writeFile(file, pem, { mode: 0o644 });
  else if (existing !== pem)
    throw new IronclawError(
      "evidence_foreign",
      `${file} holds another host key: this host's certificates cannot join that folder`,
    );
}
