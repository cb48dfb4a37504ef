import { join } from "node:path";
import {
  BrainHistory,
  type HistoryEntry,
  hashBrainDatabase,
  historyEntryJson,
  restorableBrainDir,
} from "../../attest/index.js";
import { brainLockHolder, listKeptCells, loadHostConfig, usersDir } from "../../cells/index.js";
import { ConflictError, ironclawHome } from "../../core/index.js";
import { runningWardenUrl } from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";

/**
 * `ironclaw brain log|show|diff|restore`: a user's brain history as nodes, each pinning a commit of the history
 * kept under IRONCLAW_HOME/attest/history/<user>/ (outside every cell).
 */

const USER = {
  name: "user",
  type: "string",
  valueName: "id",
  required: true,
  description: "whose brain",
} as const;

export const logCommand = defineCommand({
  name: "log",
  summary: "the brain's states, newest first: node, ratchet step, time, commit and what changed it",
  options: [USER, jsonOption("the nodes with their commit, cause and time")],
  async run({ options }, io) {
    const entries = await openHistory(io, options.user).log();
    if (options.json) println(io.stdout, JSON.stringify(entries.map(historyEntryJson)));
    else if (entries.length === 0) println(io.stdout, `no history yet for ${options.user}`);
    else for (const e of entries) println(io.stdout, entryLine(e));
    return 0;
  },
});

export const showCommand = defineCommand({
  name: "show",
  summary: "one node: the agent_swarm-node-v1 record, its commit, cause, time and files",
  positionals: [{ name: "node", required: true, description: "a node id, or its first 8+ characters" }],
  options: [USER, jsonOption("the node, commit, cause, time and files")],
  async run({ options, args }, io) {
    const history = openHistory(io, options.user);
    const shown = await history.show(history.resolveNode(args.node));
    if (options.json) {
      println(io.stdout, JSON.stringify({ ...historyEntryJson(shown), files: shown.files }));
      return 0;
    }
    println(io.stdout, entryLine(shown));
    println(io.stdout, JSON.stringify(shown.node, null, 2));
    println(io.stdout, `${shown.files.length} file${shown.files.length === 1 ? "" : "s"}:`);
    for (const file of shown.files) println(io.stdout, `  ${file}`);
    return 0;
  },
});

export const diffCommand = defineCommand({
  name: "diff",
  summary: "what changed between two nodes: files added, changed and removed, and the unified diff",
  positionals: [
    { name: "a", required: true, description: "the earlier node" },
    { name: "b", required: true, description: "the later node" },
  ],
  options: [USER, jsonOption("the changed paths and the patch")],
  async run({ options, args }, io) {
    const history = openHistory(io, options.user);
    const a = history.resolveNode(args.a);
    const b = history.resolveNode(args.b);
    const diff = await history.diff(a, b);
    if (options.json) {
      const { added, changed, removed, patch } = diff;
      println(io.stdout, JSON.stringify({ from_node: a, to_node: b, added, changed, removed, patch }));
      return 0;
    }
    for (const path of diff.added) println(io.stdout, `added    ${path}`);
    for (const path of diff.changed) println(io.stdout, `changed  ${path}`);
    for (const path of diff.removed) println(io.stdout, `removed  ${path}`);
    if (diff.patch !== "") io.stdout.write(`\n${diff.patch}`);
    return 0;
  },
});

export const restoreCommand = defineCommand({
  name: "restore",
  summary: "write a node's files back into the brain, as a new node (history is never rewritten)",
  description: `The user's cell must be stopped: a running cell's brain is never written behind its back.
Markdown files are restored; the brain database is left as it is: \`ironclaw memory index --brain <dir>\` brings
its index up to the restored files.`,
  positionals: [
    { name: "node", required: true, description: "the node to restore, or its first 8+ characters" },
  ],
  options: [USER, jsonOption("the new node")],
  async run({ options, args }, io) {
    const history = openHistory(io, options.user);
    const nodeId = history.resolveNode(args.node);
    const brainDir = await stoppedBrainDir(io, options.user);
    const entry = await history.restore(nodeId, brainDir, {
      dbSnapshotSha256: await hashBrainDatabase(brainDir),
    });
    if (options.json) println(io.stdout, JSON.stringify(entry ? historyEntryJson(entry) : null));
    else if (!entry) println(io.stdout, `the brain of ${options.user} already holds node ${nodeId}'s files`);
    else
      println(
        io.stdout,
        `restored node ${nodeId} as new node ${entry.node.node_id} (commit ${entry.commit})`,
      );
    return 0;
  },
});

function openHistory(io: CliIo, userId: string): BrainHistory {
  return BrainHistory.open(ironclawHome(io.env), userId);
}

/**
 * The user's brain directory, refused while a cell may write it: a cell holds its lock (brain disks), a cell
 * `ironclaw cell` keeps runs for the user, or a warden runs on this home (it starts the user's cell on their next
 * message, and a directory brain has no lock). Refused too when it is a disk image the host cannot write.
 */
async function stoppedBrainDir(io: CliIo, userId: string): Promise<string> {
  const home = ironclawHome(io.env);
  const userDir = join(usersDir(loadHostConfig(home), home), userId);
  const lock = join(userDir, "brain.lock");
  const holder = await brainLockHolder(lock);
  if (holder !== undefined)
    throw new ConflictError(
      `the brain of ${userId} is in use by a running cell (pid ${holder}, ${lock}): stop it first, then restore`,
    );
  const kept = (await listKeptCells(join(home, "run", "cells"))).find((cell) => cell.user === userId);
  if (kept)
    throw new ConflictError(
      `the brain of ${userId} is in use by a running cell (pid ${kept.pid}): stop it first (ironclaw cell stop --user ${userId}), then restore`,
    );
  const warden = runningWardenUrl(home);
  if (warden)
    throw new ConflictError(
      `a warden is running on ${home} (${warden}) and may start ${userId}'s cell at any message: stop it first, then restore`,
    );
  return restorableBrainDir(userDir, userId);
}

/** A node whose tree a forget has since redacted says so: its artifact_hash no longer matches that tree. */
function entryLine(e: HistoryEntry): string {
  const line = `${e.node.node_id}  step ${e.node.state_db.ratchet_step}  ${e.at}  ${e.commit.slice(0, 12)}  ${e.cause}`;
  return e.redacted ? `${line}  (redacted)` : line;
}
