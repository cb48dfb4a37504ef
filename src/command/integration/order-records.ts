import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostGit } from "../git/host-git.js";

/** What the vault and the worker write at an order's worktree root: the order's records, not its product. */
export const ORDER_RECORDS = ["order.json", "task.md", "state.json", "aar.json", "outputs"] as const;

/** The folder at main's root that holds every merged order's records. */
export const RECORDS_ROOT = ".ironclaw";

/** Where an order's records live on main once it is merged: one folder per order, so sibling orders never meet. */
export function recordsFolder(orderId: string): string {
  return `${RECORDS_ROOT}/orders/${orderId}`;
}

/** The null object id: an index-info line naming it with mode 0 removes the path. */
const NO_OBJECT = "0".repeat(40);

/**
 * The commit that is merged into main for an order: its branch tip with the records at the root moved under
 * `.ironclaw/orders/<order_id>/` and the root paths put back as they were where the order branched. Every order
 * writes order.json, aar.json and outputs/ at its root, so two orders run side by side would otherwise conflict on
 * them in the second merge; kept per order, they stay readable on main (an order that depends on another reads its
 * AAR there). Built with plumbing on an index of its own: no checkout, nothing of the worker's tree runs.
 */
export async function recordsMovedCommit(
  repo: string,
  tip: string,
  base: string,
  orderId: string,
): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), "ironclaw-records-"));
  const indexFile = join(scratch, "index");
  const git = (args: string[], input?: string) =>
    hostGit(repo, args, { indexFile, ...(input === undefined ? {} : { input }) });
  try {
    // The index starts as the tip; the records at its root then leave it and come back under the order's folder.
    const [, fork, atTip] = await Promise.all([
      git(["read-tree", tip]),
      git(["merge-base", base, tip]),
      git(["ls-tree", "-r", "-z", tip, "--", ...ORDER_RECORDS]),
    ]);
    const tipEntries = atTip.stdout.split("\0").filter((line) => line !== "");
    if (tipEntries.length === 0) return tip;
    const atFork = await git(["ls-tree", "-r", "-z", fork.stdout.trim(), "--", ...ORDER_RECORDS]);
    const pathOf = (line: string) => line.slice(line.indexOf("\t") + 1);
    // Mode 0 removes an entry (update-index --index-info); the lines apply in order.
    const removed = tipEntries.map((line) => `0 ${NO_OBJECT}\t${pathOf(line)}`);
    const moved = tipEntries.map((line) => {
      const tab = line.indexOf("\t");
      return `${line.slice(0, tab)}\t${recordsFolder(orderId)}/${line.slice(tab + 1)}`;
    });
    const restored = atFork.stdout.split("\0").filter((line) => line !== "");
    await git(["update-index", "-z", "--index-info"], `${[...removed, ...moved, ...restored].join("\0")}\0`);
    const tree = (await git(["write-tree"])).stdout.trim();
    const message = `Order ${orderId}: its records under ${recordsFolder(orderId)}/`;
    return (await git(["commit-tree", tree, "-p", tip, "-m", message])).stdout.trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
