import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { LedgerEventType } from "../../src/contracts/index.js";
import type { EventStore, RecordedEvent } from "../../src/ledger/index.js";

const AFTER_COMPLETION = new Set([
  "ORDER_REISSUED",
  "ORDER_STARTED",
  "ORDER_ENQUEUED",
  "ORDER_FAILED",
  "ORDER_COMPLETED",
]);

/**
 * What must hold after any crash schedule, as a list of broken rules (empty: all hold): every run concluded; every
 * order integrated, or failed (or cancelled behind a failed dependency) with a reason; nothing restarted an order
 * once it completed; one merge per order on main, the one its INTEGRATED names; no worktree whose commits are
 * neither on main nor archived is gone; the projections equal a rebuild from the events.
 */
export async function brokenRules(store: EventStore, repo: string, runIds: string[]): Promise<string[]> {
  const broken: string[] = [];
  const merges = mergesOnMain(repo);
  for (const runId of runIds) {
    const run = await store.getRun(runId);
    if (!run || run.status === "OPEN") broken.push(`run ${runId} did not conclude (${run?.status})`);
    for (const { order_id: id } of run?.orders ?? []) {
      const order = await store.getOrder(id);
      const events = await store.read({ orderId: id, limit: 10_000 });
      const name = `order ${id}`;
      const reasonOf = (type: string) =>
        String(events.findLast((e) => e.type === type)?.payload.reason ?? "");
      const integrated = events.filter((e) => e.type === "INTEGRATED");
      if (order?.status === "COMPLETED" && order.integration_state === "INTEGRATED") {
        const sha = String(integrated[0]?.payload.commit_sha);
        if (merges.get(id)?.[0] !== sha)
          broken.push(`${name}: INTEGRATED names ${sha}, main merged it as ${merges.get(id)}`);
      } else if (merges.has(id)) {
        broken.push(
          `${name} is merged into main but not INTEGRATED (${order?.status}, ${order?.integration_state})`,
        );
      } else if (
        order?.status === "FAILED"
          ? !reasonOf("ORDER_FAILED")
          : order?.status !== "CANCELLED" || !reasonOf("ORDER_CANCELLED")
      )
        broken.push(
          `${name} ended ${order?.status} (integration ${order?.integration_state}): neither integrated nor over with a reason` +
            (order?.integration_state === "FAILED"
              ? `; integration failed: ${reasonOf("INTEGRATION_FAILED")}`
              : ""),
        );
      const completed = events.findIndex((e) => e.type === "ORDER_COMPLETED");
      const later =
        completed < 0 ? [] : events.slice(completed + 1).filter((e) => AFTER_COMPLETION.has(e.type));
      if (later.length > 0) broken.push(`${name} moved after it completed: ${story(later)}`);
      if (integrated.length > 1) broken.push(`${name} INTEGRATED ${integrated.length} times`);
      if ((merges.get(id)?.length ?? 0) > 1)
        broken.push(`${name} merged into main ${merges.get(id)?.length} times`);
      if (
        order?.branch &&
        order.worktree_path &&
        !existsSync(order.worktree_path) &&
        !kept(repo, order.branch)
      )
        broken.push(
          `${name}: worktree ${order.worktree_path} is gone with commits on ${order.branch} not on main`,
        );
    }
  }
  const projections = await store.dumpSnapshots();
  await store.rebuild();
  if (JSON.stringify(await store.dumpSnapshots()) !== JSON.stringify(projections))
    broken.push("the projections differ from a rebuild from the events");
  return broken;
}

/** Each order's merge commits on main's first-parent line, by the order id their message names. */
function mergesOnMain(repo: string): Map<string, string[]> {
  const log = git(repo, "log", "--first-parent", "--merges", "--format=%H %s", "main");
  const merges = new Map<string, string[]>();
  for (const line of log.split("\n")) {
    const [sha, ...subject] = line.split(" ");
    const id = /^Integrate order (\S+)/.exec(subject.join(" "))?.[1];
    if (sha && id) merges.set(id, [...(merges.get(id) ?? []), sha]);
  }
  return merges;
}

/** Whether a branch's commits are all kept: merged into main or archived under a tag. */
function kept(repo: string, branch: string): boolean {
  const unmerged = git(repo, "rev-list", `refs/heads/${branch}`, "--not", "main", "--tags");
  return unmerged === "";
}

function git(repo: string, ...args: string[]): string {
  return spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
}

function story(events: RecordedEvent[]): string {
  return events.map((e) => `${e.type}${JSON.stringify(e.payload)}`).join(", ");
}

/** How the runs went, for the log: orders integrated and failed, and reissues (after a kill or a stall). */
export async function chaosFigures(store: EventStore, runIds: string[]): Promise<Record<string, number>> {
  const figures = { INTEGRATED: 0, ORDER_FAILED: 0, ORDER_REISSUED: 0, ORDER_STARTED: 0 };
  for (const runId of runIds)
    for (const event of await store.read({
      runId,
      types: Object.keys(figures) as LedgerEventType[],
      limit: 10_000,
    }))
      figures[event.type as keyof typeof figures] += 1;
  return figures;
}
