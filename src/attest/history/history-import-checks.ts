import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { type BranchNode, branchNodeSchema } from "../../contracts/index.js";
import { InvalidInputError, sha256Hex } from "../../core/index.js";
import { type HistoryRepo, historyGitText } from "./history-git.js";
import {
  HISTORY_DIR,
  HISTORY_REDACTIONS_FILE,
  type HistoryManifest,
  redactionsSchema,
} from "./history-manifest.js";

/** What an imported history's checks read from a folder handed over: each refusal names the file and field. */

/** A regular file's bytes; a link or anything else is refused (never followed out of the folder). */
export function readRegular(file: string): Buffer {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new InvalidInputError(file, stat ? "must be a regular file" : "is missing");
  return readFileSync(file);
}

/** A JSON file checked against its schema; the first issue is reported with its path. */
export function parseFile<T extends z.ZodType>(file: string, schema: T): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(readRegular(file).toString("utf8"));
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(file, `must be JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidInputError(`${file} $.${issue?.path.join(".") ?? ""}`, issue?.message ?? "is not valid");
}

/** redactions.json checked against the digest history.json gives, copied to `to`; its commit map. */
export async function copyRedactions(
  from: string,
  manifest: HistoryManifest,
  to: string,
): Promise<Record<string, string>> {
  if (manifest.redactions_sha256 === null) return {};
  const file = join(from, HISTORY_REDACTIONS_FILE);
  const bytes = readRegular(file);
  if (`sha256:${sha256Hex(bytes)}` !== manifest.redactions_sha256)
    throw new InvalidInputError(
      `${HISTORY_DIR}/history.json $.redactions_sha256`,
      `must be the sha256 of ${HISTORY_DIR}/${HISTORY_REDACTIONS_FILE}`,
    );
  const redactions = parseFile(file, redactionsSchema);
  await writeFile(to, bytes, { mode: 0o600 });
  return redactions.commits;
}

/** The folder's nodes by id: every regular nodes/*.json that is a valid node (the first file of each id). */
export function readFolderNodes(nodesDir: string): Map<string, BranchNode> {
  const nodes = new Map<string, BranchNode>();
  if (!lstatSync(nodesDir, { throwIfNoEntry: false })?.isDirectory())
    throw new InvalidInputError(nodesDir, "must be the folder of the history's nodes");
  const names = readdirSync(nodesDir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".json"))
    .map((e) => e.name)
    .sort();
  for (const name of names) {
    const node = parseFile(join(nodesDir, name), branchNodeSchema);
    if (!nodes.has(node.node_id)) nodes.set(node.node_id, node);
  }
  return nodes;
}

/**
 * The history's nodes, as history.json lists them: each in the folder, each parent among them, and the head
 * reaching the root without a loop (a log walks it).
 */
export function chainOf(manifest: HistoryManifest, folder: Map<string, BranchNode>): Map<string, BranchNode> {
  const field = `${HISTORY_DIR}/history.json $.node_ids`;
  const nodes = new Map<string, BranchNode>();
  for (const id of manifest.node_ids) {
    const node = folder.get(id);
    if (node === undefined) throw new InvalidInputError(field, `names node ${id}, which is not in nodes/`);
    nodes.set(id, node);
  }
  for (const node of nodes.values())
    if (node.parent_node_id !== null && !nodes.has(node.parent_node_id))
      throw new InvalidInputError(field, `lacks node ${node.parent_node_id}, the parent of ${node.node_id}`);
  const seen = new Set<string>();
  for (
    let id: string | null = manifest.head_node_id;
    id !== null;
    id = nodes.get(id)?.parent_node_id ?? null
  ) {
    if (!nodes.has(id))
      throw new InvalidInputError(`${HISTORY_DIR}/history.json $.head_node_id`, "must be one of node_ids");
    if (seen.has(id)) throw new InvalidInputError(field, `node ${id} is its own ancestor`);
    seen.add(id);
  }
  return nodes;
}

/**
 * Every node pins a commit the fetched history holds, reachable from HEAD (directly, or where a forget moved
 * it), and the head node pins HEAD itself.
 */
export async function checkCommits(
  repo: HistoryRepo,
  nodes: Map<string, BranchNode>,
  moved: Record<string, string>,
  head: string,
  headNodeId: string,
): Promise<void> {
  const reachable = new Set((await historyGitText(repo, ["rev-list", "HEAD"])).split("\n"));
  for (const node of nodes.values()) {
    const pinned = node.attestation.commit_sha_required;
    const commit = pinned === null ? undefined : (moved[pinned] ?? pinned);
    if (commit === undefined || !reachable.has(commit))
      throw new InvalidInputError(
        `nodes/${node.node_id}.json $.attestation.commit_sha_required`,
        `must pin a commit of ${HISTORY_DIR}/history.bundle's history (${pinned ?? "none"} is not there)`,
      );
    if (node.node_id === headNodeId && commit !== head)
      throw new InvalidInputError(
        `nodes/${node.node_id}.json $.attestation.commit_sha_required`,
        `the head node must pin the history's HEAD ${head}`,
      );
  }
}
