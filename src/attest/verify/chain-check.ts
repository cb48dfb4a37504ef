import { type BranchNode, branchNodeSchema, diffImmutableFields } from "../../contracts/index.js";
import { issuesFromZod } from "../../core/index.js";
import { type EvidenceFile, parseJson } from "./evidence.js";
import { type CheckResult, fail, pass } from "./report.js";

interface NodeVersion {
  file: string;
  node: BranchNode;
}

/**
 * The node chain of a folder: every node file is a valid agent_swarm-node-v1 named after its node id
 * (`nodes/<node_id>.json`, or `nodes/<node_id>.<version>.json` for a later version of it), every parent is in the
 * folder, no node is its own ancestor, and two versions of one node agree on every immutable linkage field
 * (seed 002 §4).
 */
export function checkChain(files: readonly EvidenceFile[]): CheckResult[] {
  const failures: CheckResult[] = [];
  const versions = new Map<string, NodeVersion[]>();
  for (const file of files) {
    const read = readNode(file);
    if ("failure" in read) {
      failures.push(read.failure);
      continue;
    }
    const stem = file.file.slice(file.file.lastIndexOf("/") + 1, -".json".length);
    if (stem !== read.node.node_id && !stem.startsWith(`${read.node.node_id}.`)) {
      failures.push(
        fail("chain", `${file.file}: $.node_id ${read.node.node_id} is not the node its file name names`, {
          file: file.file,
          field: "$.node_id",
        }),
      );
      continue;
    }
    const list = versions.get(read.node.node_id) ?? [];
    list.push({ file: file.file, node: read.node });
    versions.set(read.node.node_id, list);
  }
  for (const [nodeId, list] of versions) {
    const [first, ...later] = list;
    if (first === undefined) continue;
    for (const other of later) {
      const changed = diffImmutableFields(first.node, other.node);
      if (changed.length > 0)
        failures.push(
          fail(
            "chain",
            `node ${nodeId}: ${other.file} changes immutable ${changed.join(", ")} of ${first.file}`,
            { file: other.file, field: `$.${changed[0]}` },
          ),
        );
    }
    const parent = first.node.parent_node_id;
    if (parent !== null && !versions.has(parent))
      failures.push(
        fail("chain", `${first.file}: $.parent_node_id ${parent} is not in nodes/`, {
          file: first.file,
          field: "$.parent_node_id",
        }),
      );
  }
  failures.push(...findCycles(versions));
  if (failures.length > 0) return failures;
  return [
    pass(
      "chain",
      `${versions.size} node${versions.size === 1 ? "" : "s"}: parents present, no cycle, immutable linkage unchanged`,
    ),
  ];
}

function readNode(file: EvidenceFile): { node: BranchNode } | { failure: CheckResult } {
  const json = parseJson(file);
  if ("error" in json) return { failure: fail("chain", json.error, { file: file.file }) };
  const parsed = branchNodeSchema.safeParse(json.value);
  if (parsed.success) return { node: parsed.data };
  const [first] = issuesFromZod(parsed.error);
  return {
    failure: fail("chain", `${file.file}: ${first?.path}: ${first?.message}`, {
      file: file.file,
      field: first?.path,
    }),
  };
}

/** A node reached again while walking up from it: its parent links form a loop. */
function findCycles(versions: ReadonlyMap<string, NodeVersion[]>): CheckResult[] {
  const failures: CheckResult[] = [];
  const cleared = new Set<string>();
  for (const start of versions.keys()) {
    const path: string[] = [];
    // A set beside the path: a folder's history is one long chain, and a lookup in the path itself made
    // walking it quadratic.
    const onPath = new Set<string>();
    let at: string | null = start;
    while (at !== null && !cleared.has(at) && versions.has(at)) {
      if (onPath.has(at)) {
        const file = versions.get(at)?.[0]?.file;
        failures.push(
          fail(
            "chain",
            `node ${at} is its own ancestor: ${[...path.slice(path.indexOf(at)), at].join(" → ")}`,
            { file, field: "$.parent_node_id" },
          ),
        );
        break;
      }
      path.push(at);
      onPath.add(at);
      at = versions.get(at)?.[0]?.node.parent_node_id ?? null;
    }
    for (const id of path) cleared.add(id);
  }
  return failures;
}
