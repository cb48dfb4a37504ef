import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BranchNode, branchNodeSchema, diffImmutableFields } from "../../contracts/index.js";
import { ConflictError, canonicalBytes, InvalidInputError, NotFoundError } from "../../core/index.js";

const NODE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A user's branch nodes, `nodes/<node_id>.json`, each the canonical JSON bytes of one agent_swarm-node-v1 node.
 * A node is written once. Seed 002 §4 forbids changing its linkage after creation, so writing a node id again
 * with any immutable linkage field changed is refused, naming the fields; the same bytes again are a no-op.
 * What the linkage leaves out (locations, the network token, the attestation a certificate fills in later) may
 * be filled in by writing the node again.
 */
export class NodeStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  fileOf(nodeId: string): string {
    if (!NODE_ID.test(nodeId)) throw new InvalidInputError("node_id", "must be a lowercase UUID");
    return join(this.dir, `${nodeId}.json`);
  }

  /** The node, or undefined when this store has none of that id. */
  find(nodeId: string): BranchNode | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.fileOf(nodeId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return branchNodeSchema.parse(JSON.parse(bytes.toString("utf8")));
  }

  get(nodeId: string): BranchNode {
    const node = this.find(nodeId);
    if (!node) throw new NotFoundError("node", nodeId);
    return node;
  }

  /** Writes a node; a node id already stored with different linkage is refused (ConflictError). */
  put(input: unknown): BranchNode {
    const parsed = branchNodeSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidInputError(
        `node.${issue?.path.join(".") ?? ""}`,
        issue?.message ?? "is not a branch node",
      );
    }
    const node = parsed.data;
    const file = this.fileOf(node.node_id);
    const bytes = canonicalBytes(node);
    const stored = this.find(node.node_id);
    if (stored) {
      const changed = diffImmutableFields(stored, node);
      if (changed.length > 0)
        throw new ConflictError(
          `node ${node.node_id} exists: its immutable linkage cannot change (${changed.join(", ")})`,
        );
      if (canonicalBytes(stored).equals(bytes)) return stored;
    }
    // Written beside, then renamed: a reader sees the old bytes or the new, never half a node.
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, bytes, { mode: 0o600 });
    renameSync(temp, file);
    return node;
  }

  /** The ids of every stored node, unordered. */
  ids(): string[] {
    return readdirSync(this.dir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.slice(0, -".json".length))
      .filter((id) => NODE_ID.test(id));
  }
}
