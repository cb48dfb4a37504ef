import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BranchNode } from "../../contracts/index.js";
import { InvalidInputError, isWithin, NotFoundError, pathComponents } from "../../core/index.js";
import {
  type BrainTree,
  isHistoryPath,
  readBrainTree,
  sortTree,
  treeHash,
  writeBrainTree,
} from "./brain-tree.js";
import { type HistoryRepo, historyGit, historyGitText } from "./history-git.js";
import { historyDirOf, historyLayout } from "./history-layout.js";
import { withHistoryLock } from "./history-lock.js";
import { newNode, snapshotDigest } from "./history-node.js";
import { diffCommits, readChangedPaths, readCommitLog, readTreeAt, type TreeDiff } from "./history-read.js";
import { addRedaction, type Redactions, readRedactions } from "./history-redactions.js";
import { type HistoryRewrite, moveHead, rewriteCommits } from "./history-rewrite.js";
import { NodeStore } from "./node-store.js";

/** One changed file as the warden knows it: its new bytes, or null when it was removed. */
export interface BrainFileChange {
  path: string;
  content: string | Buffer | null;
}

export interface RecordInput {
  /** What changed the brain, in words: "turn 01J…", "memory edit in the UI", "soul change approved". */
  cause: string;
  /** The brain directory on the host: its whole markdown tree is read (the authoritative way). */
  brainDir?: string;
  /** Or the whole markdown tree, as the brain's cell reported it (a disk image the host cannot read). */
  tree?: BrainTree;
  /** Otherwise the files that changed; every other file stays as the last node had it. */
  changes?: readonly BrainFileChange[];
  /** sha256 of the brain database's serialized snapshot, hex or `sha256:<hex>`. */
  dbSnapshotSha256: string;
  at?: Date;
}

/** A node with what its commit says: the commit it pins, why it was made and when. */
export interface HistoryEntry {
  node: BranchNode;
  commit: string;
  cause: string;
  at: string;
  /** A forget has since removed text from this node's tree: its artifact_hash no longer matches the tree. */
  redacted: boolean;
}

/** What one redaction of the history did: how many commits were made again, how many lost text. */
export interface RedactOutcome {
  commitsRewritten: number;
  commitsRedacted: number;
}

/**
 * A user's brain history, on the host under IRONCLAW_HOME/attest/history/<user>/ and outside every cell: a git
 * repository mirroring the brain's markdown tree (git/ + tree/) and a node store (nodes/). Each state the brain
 * reaches is one commit and one agent_swarm-node-v1 node pinning it; nodes chain by parent_node_id and
 * ratchet_step. History only grows: a restore is a new node with old content.
 */
export class BrainHistory {
  readonly nodes: NodeStore;
  private readonly repo: HistoryRepo;
  private readonly headFile: string;
  private readonly lockFile: string;
  private readonly redactionsFile: string;

  private constructor(
    readonly userId: string,
    readonly dir: string,
  ) {
    const layout = historyLayout(dir);
    this.repo = layout.repo;
    this.nodes = new NodeStore(layout.nodesDir);
    this.headFile = layout.headFile;
    this.lockFile = layout.lockFile;
    this.redactionsFile = layout.redactionsFile;
  }

  /** The history of `userId` under `home` (IRONCLAW_HOME), made on first use. */
  static open(home: string, userId: string): BrainHistory {
    const dir = historyDirOf(home, userId);
    mkdirSync(join(dir, "tree"), { recursive: true, mode: 0o700 });
    return new BrainHistory(userId, dir);
  }

  /** The newest node's id, or undefined before the first. */
  head(): string | undefined {
    if (!existsSync(this.headFile)) return undefined;
    return readFileSync(this.headFile, "utf8").trim() || undefined;
  }

  /** The node a reference names: its full id, or a prefix of it only one node has (at least 8 characters). */
  resolveNode(ref: string): string {
    const wanted = ref.trim().toLowerCase();
    if (wanted.length === 36 && this.nodes.find(wanted) !== undefined) return wanted;
    if (wanted.length < 8)
      throw new InvalidInputError("node", "must be a node id or at least its first 8 characters");
    const matches = this.nodes.ids().filter((id) => id.startsWith(wanted));
    if (matches.length === 0) throw new NotFoundError("node", ref);
    if (matches.length > 1)
      throw new InvalidInputError(
        "node",
        `${ref} is the start of ${matches.length} node ids: give more of it`,
      );
    return matches[0] as string;
  }

  /** Records the brain's state as a new node; undefined when the tree and the database hash are unchanged. */
  async record(input: RecordInput): Promise<HistoryEntry | undefined> {
    const db = snapshotDigest(input.dbSnapshotSha256);
    const cause = causeLine(input.cause);
    return withHistoryLock(this.lockFile, async () => {
      const tree =
        input.brainDir !== undefined
          ? this.readBrain(input.brainDir)
          : input.tree !== undefined
            ? reportedTree(input.tree)
            : this.applyChanges(input.changes);
      return this.commitState(tree, db, cause, input.at ?? new Date());
    });
  }

  /** Newest first, following parent links from the head. */
  async log(): Promise<HistoryEntry[]> {
    if (this.head() === undefined) return [];
    const commits = await readCommitLog(this.repo);
    const redactions = readRedactions(this.redactionsFile);
    const entries: HistoryEntry[] = [];
    for (let id = this.head(); id !== undefined; ) {
      const node = this.nodes.get(id);
      entries.push(this.entryOf(node, commits, redactions));
      id = node.parent_node_id ?? undefined;
    }
    return entries;
  }

  /** The paths each entry's commit changed against its parent's, by commit (HistoryEntry.commit). */
  async changedPaths(): Promise<Map<string, string[]>> {
    if (this.head() === undefined) return new Map();
    return readChangedPaths(this.repo);
  }

  /** One node with its commit, cause, time and the files of its tree. */
  async show(nodeId: string): Promise<HistoryEntry & { files: string[] }> {
    const node = this.nodes.get(nodeId);
    const entry = this.entryOf(node, await readCommitLog(this.repo), readRedactions(this.redactionsFile));
    const files = [...(await readTreeAt(this.repo, entry.commit)).keys()];
    return { ...entry, files };
  }

  /** What changed from node `a` to node `b`: files added, changed and removed, and git's unified diff. */
  async diff(a: string, b: string): Promise<TreeDiff> {
    const redactions = readRedactions(this.redactionsFile);
    const from = this.commitOf(this.nodes.get(a), redactions);
    return diffCommits(this.repo, from, this.commitOf(this.nodes.get(b), redactions));
  }

  /** The markdown tree a node pinned. */
  async treeOf(nodeId: string): Promise<BrainTree> {
    return readTreeAt(this.repo, this.commitOf(this.nodes.get(nodeId), readRedactions(this.redactionsFile)));
  }

  /**
   * Writes node `nodeId`'s tree back into `brainDir` and records that as a new node ("restore of <node>");
   * undefined when the brain already holds exactly that content. The caller makes sure no cell runs on it.
   */
  async restore(
    nodeId: string,
    brainDir: string,
    options: { dbSnapshotSha256: string; at?: Date },
  ): Promise<HistoryEntry | undefined> {
    const db = snapshotDigest(options.dbSnapshotSha256);
    const at = options.at ?? new Date();
    return withHistoryLock(this.lockFile, async () => {
      const tree = await this.treeOf(nodeId);
      // Files changed since the last node are kept first, as a node of their own: a restore loses nothing.
      const now = this.readBrain(brainDir);
      const head = this.head();
      if (head === undefined || this.nodes.get(head).workspace.artifact_hash !== treeHash(now))
        await this.commitState(now, db, `before restore of ${nodeId}`, at);
      writeBrainTree(brainDir, tree);
      return this.commitState(tree, db, `restore of ${nodeId}`, at);
    });
  }

  /**
   * Removes text from every state the history holds, as a forget removes it from the brain: each commit whose
   * markdown `rewrite` changes is made again (and every commit after it), HEAD moves to the new head, the old
   * objects are pruned so no git object keeps the words, and the mirror follows. Nodes stay as they were made;
   * redactions.json beside them says where their commits went and which trees lost text.
   */
  async redact(rewrite: HistoryRewrite, cause: string, at: Date = new Date()): Promise<RedactOutcome> {
    const line = causeLine(cause);
    return withHistoryLock(this.lockFile, async () => {
      if (this.head() === undefined || !existsSync(join(this.repo.gitDir, "HEAD")))
        return { commitsRewritten: 0, commitsRedacted: 0 };
      const rewritten = await rewriteCommits(this.repo, rewrite);
      // A history redacted before is pruned again even when nothing moved now: a prune cut short then (a
      // stopped warden, a full disk) must not leave the old objects for good.
      if (rewritten.moved.size === 0 && !existsSync(this.redactionsFile))
        return { commitsRewritten: 0, commitsRedacted: 0 };
      if (rewritten.moved.size > 0) {
        // Where each commit went is written before HEAD moves: were the move cut short, the next redaction
        // finds the old commits again and maps them anew, and no node ever names a pruned commit.
        addRedaction(this.redactionsFile, rewritten, { at: at.toISOString(), cause: line });
        await moveHead(this.repo, rewritten.head);
        writeBrainTree(this.repo.workTree, await readTreeAt(this.repo, "HEAD"));
      }
      await historyGit(this.repo, ["reflog", "expire", "--expire=now", "--all"]);
      await historyGit(this.repo, ["gc", "-q", "--prune=now"]);
      return { commitsRewritten: rewritten.moved.size, commitsRedacted: rewritten.redacted.size };
    });
  }

  private readBrain(brainDir: string): BrainTree {
    this.assertOutside(brainDir);
    return readBrainTree(brainDir);
  }

  /** The history must never lie inside the brain it records (a cell could then rewrite it), nor the reverse. */
  private assertOutside(brainDir: string): void {
    const brain = resolve(brainDir);
    if (isWithin(brain, this.dir) || isWithin(this.dir, brain))
      throw new InvalidInputError("brainDir", `must not contain or lie inside the history at ${this.dir}`);
  }

  private applyChanges(changes: readonly BrainFileChange[] | undefined): BrainTree {
    if (changes === undefined) throw new InvalidInputError("record", "needs brainDir or changes");
    const tree = readBrainTree(this.repo.workTree);
    changes.forEach((change, i) => {
      const parts = pathComponents(change.path, `changes[${i}].path`);
      const path = parts.join("/");
      if (!isHistoryPath(path)) return; // not part of the markdown tree: the db hash covers the rest
      if (change.content === null) tree.delete(path);
      else
        tree.set(
          path,
          typeof change.content === "string" ? Buffer.from(change.content, "utf8") : change.content,
        );
    });
    return sortTree(tree);
  }

  private async commitState(
    tree: BrainTree,
    db: string,
    cause: string,
    at: Date,
  ): Promise<HistoryEntry | undefined> {
    const headId = this.head();
    const parent = headId === undefined ? undefined : this.nodes.get(headId);
    const artifactHash = treeHash(tree);
    if (
      parent &&
      parent.workspace.artifact_hash === artifactHash &&
      snapshotDigest(parent.state_db.snapshot_hash) === db
    )
      return undefined;
    if (!existsSync(join(this.repo.gitDir, "HEAD"))) await historyGit(this.repo, ["init", "-q"]);
    writeBrainTree(this.repo.workTree, tree);
    const nodeId = randomUUID();
    const date = `@${Math.floor(at.getTime() / 1000)} +0000`;
    await historyGit(this.repo, ["add", "-A", "."]);
    const message = `${cause}\n\nNode: ${nodeId}\nState-Db: ${db}\n`;
    await historyGit(this.repo, ["commit", "-q", "--allow-empty", "--no-verify", "-F", "-"], {
      input: message,
      date,
    });
    const commit = await historyGitText(this.repo, ["rev-parse", "HEAD"]);
    const step = parent ? parent.state_db.ratchet_step + 1 : 0;
    const node = this.nodes.put(newNode({ nodeId, parent, artifactHash, db, commit, step }));
    const temp = `${this.headFile}.${process.pid}.tmp`;
    writeFileSync(temp, `${nodeId}\n`, { mode: 0o600 });
    renameSync(temp, this.headFile);
    const time = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
    return { node, commit, cause, at: time, redacted: false };
  }

  /** The commit that holds a node's tree now: the one it pinned, or where a redaction moved that one. */
  private commitOf(node: BranchNode, redactions: Redactions): string {
    const pinned = node.attestation.commit_sha_required;
    if (!pinned) throw new NotFoundError("commit of node", node.node_id);
    return redactions.commits[pinned] ?? pinned;
  }

  private entryOf(
    node: BranchNode,
    commits: Map<string, { cause: string; at: string }>,
    redactions: Redactions,
  ): HistoryEntry {
    const commit = this.commitOf(node, redactions);
    const info = commits.get(commit);
    const redacted = redactions.redacted.includes(node.attestation.commit_sha_required ?? "");
    return { node, commit, cause: info?.cause ?? "", at: info?.at ?? "", redacted };
  }
}

/** A reported tree holds only paths the history keeps, each named once: anything else is refused whole. */
function reportedTree(tree: BrainTree): BrainTree {
  for (const path of tree.keys()) {
    const named = pathComponents(path, "tree").join("/");
    if (named !== path || !isHistoryPath(path))
      throw new InvalidInputError("tree", `${path} is not a markdown path of the brain the history keeps`);
  }
  return sortTree(tree);
}

/** A cause is one line of a commit subject. */
function causeLine(cause: string): string {
  const line = cause.replace(/\s+/g, " ").trim().slice(0, 200);
  if (line === "") throw new InvalidInputError("cause", "must not be empty");
  return line;
}
