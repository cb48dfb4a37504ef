import { copyFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BrainHistory } from "../../attest/index.js";
import { type BranchNode, branchNodeSchema } from "../../contracts/index.js";
import { canonicalBytes, IronclawError } from "../../core/index.js";
import { EVIDENCE_DIR, EVIDENCE_PARTS, evidenceDirOf, listCertifiedTurns } from "./evidence-store.js";

/** A chat session's certified turns: whose they are, and their job ids, oldest first. */
export interface SessionTurns {
  userId: string;
  sessionId: string;
  jobIds: string[];
}

/**
 * Finds the user whose certified turns name `sessionId` (turns.jsonl of each user's evidence folder); undefined
 * when no user's does. A session belongs to one user: the first one found is the owner.
 */
export async function findSessionTurns(home: string, sessionId: string): Promise<SessionTurns | undefined> {
  const root = join(resolve(home), "attest", EVIDENCE_DIR);
  const users = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const user of users) {
    if (!user.isDirectory()) continue;
    const turns = await listCertifiedTurns(join(root, user.name));
    const jobIds = turns
      .filter((t) => t.session_id === sessionId)
      .map((t) => t.job_id)
      .reverse();
    if (jobIds.length > 0) return { userId: user.name, sessionId, jobIds };
  }
  return undefined;
}

/**
 * Copies one session's certified turns into an evidence folder: each certificate with its proof, response and
 * attested node, and every ancestor of those nodes the folder lacks, so that `ironclaw verify` finds the chain
 * whole. An ancestor comes as the brain history holds it (no attestation): its own certificate, if it has one,
 * belongs to another session and stays out, so no node in the folder points at a certificate that is not there.
 * Returns the attested node ids, in the order of the turns.
 */
export async function copySessionTurns(
  home: string,
  session: SessionTurns,
  to: string,
): Promise<{ certificates: number; nodeIds: string[] }> {
  const from = evidenceDirOf(home, session.userId);
  const jobs = new Set(session.jobIds);
  for (const part of EVIDENCE_PARTS) await mkdir(join(to, part), { recursive: true });
  for (const job of session.jobIds) {
    await copyFile(join(from, "responses", `${job}.txt`), join(to, "responses", `${job}.txt`));
    await copyFile(join(from, "proofs", `${job}.json`), join(to, "proofs", `${job}.json`));
  }
  const attested = new Map<string, BranchNode>();
  for (const name of await readdir(join(from, "nodes")).catch(() => [] as string[])) {
    const bytes = await readFile(join(from, "nodes", name));
    const node = branchNodeSchema.parse(JSON.parse(bytes.toString("utf8")));
    const job = jobOfProof(node.attestation.proof_ref);
    if (job === undefined || !jobs.has(job)) continue;
    await writeFile(join(to, "nodes", name), bytes);
    attested.set(job, node);
  }
  await copyAncestors(home, session.userId, [...attested.values()], to);
  // The certificates last: each one lands beside its proof, response and node.
  for (const job of session.jobIds)
    await copyFile(join(from, "certificates", `${job}.json`), join(to, "certificates", `${job}.json`));
  const nodeIds = session.jobIds.flatMap((job) => attested.get(job)?.node_id ?? []);
  return { certificates: session.jobIds.length, nodeIds };
}

/** Writes each node's missing ancestors from the user's brain history, up to the root or a node already there. */
async function copyAncestors(home: string, userId: string, nodes: BranchNode[], to: string): Promise<void> {
  const present = new Set((await readdir(join(to, "nodes"))).map((name) => name.slice(0, name.indexOf("."))));
  const history = BrainHistory.open(home, userId);
  for (const node of nodes) {
    for (let id = node.parent_node_id; id !== null && !present.has(id); ) {
      const parent = history.nodes.find(id);
      if (parent === undefined)
        throw new IronclawError(
          "evidence_incomplete",
          `node ${id}, an ancestor of node ${node.node_id}, is not in the brain history of ${userId}: the chain cannot be exported whole`,
        );
      await writeFile(join(to, "nodes", `${id}.json`), canonicalBytes(parent));
      present.add(id);
      id = parent.parent_node_id;
    }
  }
}

function jobOfProof(proofRef: string | null): string | undefined {
  return proofRef === null ? undefined : /\/proofs\/([^/]+)\.json$/.exec(proofRef)?.[1];
}
