import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError, IronclawError, sha256Hex } from "../../core/index.js";
import { writeBrainTree } from "./brain-tree.js";
import { type HistoryRepo, historyGit, historyGitText } from "./history-git.js";
import {
  chainOf,
  checkCommits,
  copyRedactions,
  parseFile,
  readFolderNodes,
  readRegular,
} from "./history-import-checks.js";
import { historyDirOf, historyLayout } from "./history-layout.js";
import {
  HISTORY_BUNDLE_FILE,
  HISTORY_DIR,
  HISTORY_MANIFEST_FILE,
  type HistoryManifest,
  historyManifestSchema,
} from "./history-manifest.js";
import { readTreeAt } from "./history-read.js";
import { NodeStore } from "./node-store.js";

export interface ImportedHistory {
  headNodeId: string;
  nodes: number;
  dir: string;
}

/** Whether `userId` has a history under `home` an import would replace: a head, a repository or a node. */
export function historyExists(home: string, userId: string): boolean {
  const dir = historyDirOf(home, userId);
  const layout = historyLayout(dir);
  if (existsSync(layout.headFile) || existsSync(layout.repo.gitDir) || existsSync(layout.lockFile))
    return true;
  const holds = (sub: string) => existsSync(sub) && readdirSync(sub).length > 0;
  return holds(layout.nodesDir) || holds(layout.repo.workTree);
}

/** Whether an evidence folder carries a brain history (history/history.json). */
export function hasExportedHistory(evidenceDir: string): boolean {
  return existsSync(join(evidenceDir, HISTORY_DIR, HISTORY_MANIFEST_FILE));
}

/**
 * Restores the brain history an export wrote into `evidenceDir` as the history of `userId` under `home`, which
 * must have none. The folder came from elsewhere, so nothing in it is trusted: the bundle must hash to what
 * history.json says before git reads it; git checks it (`git bundle verify`) and fetches only refs/heads/main
 * from it into a new repository, with every object checked (transfer.fsckObjects), no hooks and no transport
 * but the local file; every node must be a valid node of one unbroken chain to the head, and pin a commit the
 * fetched history holds. It is all built beside the history's place and renamed into it only once whole.
 */
export async function importHistory(input: {
  home: string;
  userId: string;
  evidenceDir: string;
}): Promise<ImportedHistory> {
  const dir = historyDirOf(input.home, input.userId);
  if (historyExists(input.home, input.userId))
    throw new IronclawError(
      "history_exists",
      `${input.userId} already has a brain history (${dir}): an import never replaces one; import under another user`,
    );
  const from = join(input.evidenceDir, HISTORY_DIR);
  const manifest = parseFile(join(from, HISTORY_MANIFEST_FILE), historyManifestSchema);
  // A user id holds no ".": the staging folder is never another user's history.
  const staging = `${dir}.import-${randomBytes(4).toString("hex")}`;
  const layout = historyLayout(staging);
  try {
    await mkdir(layout.repo.workTree, { recursive: true, mode: 0o700 });
    const redactions = await copyRedactions(from, manifest, layout.redactionsFile);
    const head = await fetchBundle(layout.repo, from, manifest, staging);
    // As a history made in place records it (git init wrote the staging folder's tree).
    await historyGit(layout.repo, ["config", "core.worktree", historyLayout(dir).repo.workTree]);
    const nodes = chainOf(manifest, readFolderNodes(join(input.evidenceDir, "nodes")));
    await checkCommits(layout.repo, nodes, redactions, head, manifest.head_node_id);
    const store = new NodeStore(layout.nodesDir);
    // As the history keeps them: an attestation's certificate stays in the folder it belongs to.
    for (const node of nodes.values())
      store.put({ ...node, attestation: { ...node.attestation, artifact_hash: null, proof_ref: null } });
    await writeFile(layout.headFile, `${manifest.head_node_id}\n`, { mode: 0o600 });
    await rm(dir, { recursive: true, force: true }); // an empty folder BrainHistory.open made, checked above
    await rename(staging, dir);
    return { headNodeId: manifest.head_node_id, nodes: nodes.size, dir };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** history.bundle checked against its digest, then given to git to verify and fetch; returns HEAD's commit. */
async function fetchBundle(
  repo: HistoryRepo,
  from: string,
  manifest: HistoryManifest,
  staging: string,
): Promise<string> {
  const bytes = readRegular(join(from, HISTORY_BUNDLE_FILE));
  if (`sha256:${sha256Hex(bytes)}` !== manifest.bundle_sha256)
    throw new InvalidInputError(
      `${HISTORY_DIR}/${HISTORY_MANIFEST_FILE} $.bundle_sha256`,
      `must be the sha256 of ${HISTORY_DIR}/${HISTORY_BUNDLE_FILE}, which hashes to sha256:${sha256Hex(bytes)}`,
    );
  // Git reads the very bytes just hashed, under a name of ours (a folder's path could read as a transport).
  const bundle = join(staging, "incoming.bundle");
  await writeFile(bundle, bytes, { mode: 0o600 });
  await historyGit(repo, ["init", "-q"]);
  await historyGit(repo, ["bundle", "verify", "-q", bundle]);
  const heads = await historyGitText(repo, ["bundle", "list-heads", bundle, "refs/heads/main"]);
  if (!/ refs\/heads\/main$/m.test(heads))
    throw new InvalidInputError(
      `${HISTORY_DIR}/${HISTORY_BUNDLE_FILE}`,
      "must hold the history's refs/heads/main",
    );
  await historyGit(repo, [
    "-c",
    "protocol.file.allow=always",
    "-c",
    "transfer.fsckObjects=true",
    "fetch",
    "-q",
    "--no-tags",
    "--no-write-fetch-head",
    "--update-head-ok",
    bundle,
    "refs/heads/main:refs/heads/main",
  ]);
  await rm(bundle);
  // The mirror the next record starts from, and the index beside it, as the head commit has them.
  writeBrainTree(repo.workTree, await readTreeAt(repo, "HEAD"));
  await historyGit(repo, ["read-tree", "HEAD"]);
  return historyGitText(repo, ["rev-parse", "HEAD^{commit}"]);
}
