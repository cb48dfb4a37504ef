import { join } from "node:path";
import {
  BrainHistory,
  type HistoryEntry,
  hashBrainDatabase,
  historyEntryJson,
  restorableBrainDir,
} from "../../attest/index.js";
import { brainLockHolder, usersDir } from "../../cells/index.js";
import {
  attestScopeQuerySchema,
  brainHistoryDiffQuerySchema,
  brainHistoryDiffSchema,
  brainHistoryListSchema,
  brainHistoryNodeParamsSchema,
  brainHistoryNodeSchema,
  brainHistoryRestoreBodySchema,
  brainHistoryRestoreSchema,
} from "../../contracts/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../../core/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

/**
 * A user's brain history over HTTP (provenance, issue 36), what `ironclaw brain log|show|diff|restore` does on
 * the host: the states newest first with what each changed, one state, the diff of two, and a restore, which is
 * a new state with old content. A user sees their own; an admin whoever they name with ?user=.
 */
export function brainHistoryRoutes(
  ctx: Pick<WardenContext, "home" | "config" | "cells" | "audit" | "soul" | "chat">,
) {
  const whose = (auth: Auth, user: string | undefined) => (auth.admin && user ? user : auth.userId);
  const open = (userId: string) => BrainHistory.open(ctx.home, userId);
  return [
    defineRoute({
      method: "GET",
      url: "/api/brain/history",
      summary: "The brain's states, newest first: node, commit, cause, time, files changed, redacted or not",
      tag: "brain",
      access: "user",
      query: attestScopeQuerySchema,
      response: brainHistoryListSchema,
      async handler({ auth, query }) {
        const history = open(whose(auth, query.user));
        const [entries, changed] = await Promise.all([history.log(), history.changedPaths()]);
        return { entries: entries.map((e) => withFiles(e, changed)) };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/brain/history/diff",
      summary: "What changed from node `from` (default: the parent of `to`) to node `to`, with the patch",
      tag: "brain",
      access: "user",
      query: brainHistoryDiffQuerySchema,
      response: brainHistoryDiffSchema,
      async handler({ auth, query }) {
        const history = open(whose(auth, query.user));
        const to = nodeIn(history, query.to, "to");
        const from =
          query.from !== undefined
            ? nodeIn(history, query.from, "from")
            : history.nodes.get(to).parent_node_id;
        if (from === null) {
          // The first state: everything it holds was added.
          const shown = await history.show(to);
          return { from_node: null, to_node: to, added: shown.files, changed: [], removed: [], patch: "" };
        }
        const { added, changed, removed, patch } = await history.diff(from, to);
        return { from_node: from, to_node: to, added, changed, removed, patch };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/brain/history/:node_id",
      summary: "One state: its agent_swarm-node-v1 record, commit, cause, time, files changed and every file",
      tag: "brain",
      access: "user",
      params: brainHistoryNodeParamsSchema,
      query: attestScopeQuerySchema,
      response: brainHistoryNodeSchema,
      async handler({ auth, params, query }) {
        const history = open(whose(auth, query.user));
        const shown = await history.show(nodeIn(history, params.node_id, "node_id"));
        const changed = await history.changedPaths();
        return { ...withFiles(shown, changed), tree: shown.files };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/brain/history/restore",
      summary:
        "Write a state's files back into the brain as a new state (history is never rewritten); the agent's idle cell is stopped first, and it is refused while a turn is being answered",
      tag: "brain",
      access: "user",
      query: attestScopeQuerySchema,
      body: brainHistoryRestoreBodySchema,
      response: brainHistoryRestoreSchema,
      async handler({ auth, query, body }) {
        const userId = whose(auth, query.user);
        const history = open(userId);
        const nodeId = nodeIn(history, body.node_id, "node_id");
        const entry = await ctx.chat.holdBrain(userId, async () => {
          // No turn is being answered and none starts until the restore ends: the agent's cell, idle, is
          // stopped so that nothing writes the brain meanwhile; the next message starts it on the restored one.
          if (ctx.cells.running(userId)) {
            await ctx.cells.stop(userId);
            ctx.audit.record({
              userId,
              actor: `user:${auth.userId}`,
              action: "cell.stop",
              detail: { reason: "brain restore" },
            });
          }
          const brainDir = await stoppedBrainDir(ctx, userId);
          const restored = await history.restore(nodeId, brainDir, {
            dbSnapshotSha256: await hashBrainDatabase(brainDir),
          });
          if (restored) await approveRestoredPrompts(ctx, history, restored, `user:${auth.userId}`);
          return restored;
        });
        ctx.audit.record({
          userId,
          actor: `user:${auth.userId}`,
          action: "brain.restore",
          detail: { node: nodeId, new_node: entry?.node.node_id ?? null },
        });
        return { restored_from: nodeId, entry: entry ? historyEntryJson(entry) : null };
      },
    }),
  ];
}

/** A node the user's history holds, by id or a unique prefix; errors name the request's field. */
function nodeIn(history: BrainHistory, ref: string, field: string): string {
  try {
    return history.resolveNode(ref);
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError(field, ref);
    if (error instanceof InvalidInputError) throw new InvalidInputError(field, error.rule);
    throw error;
  }
}

/**
 * The prompt files a restore wrote back are a person's choice, as an edit in the inspector is: they become the
 * versions the soul guard compares the agent's changes with, so the next turn is not held for them.
 */
async function approveRestoredPrompts(
  ctx: Pick<WardenContext, "soul">,
  history: BrainHistory,
  entry: HistoryEntry,
  by: string,
): Promise<void> {
  const before = entry.node.parent_node_id;
  if (before === null) return;
  const diff = await history.diff(before, entry.node.node_id);
  const tree = await history.treeOf(entry.node.node_id);
  for (const path of [...diff.added, ...diff.changed, ...diff.removed])
    ctx.soul.recordPersonEdit(history.userId, path, tree.get(path)?.toString("utf8") ?? null, by);
}

function withFiles(entry: HistoryEntry, changed: Map<string, string[]>) {
  return { ...historyEntryJson(entry), files: changed.get(entry.commit) ?? [] };
}

/**
 * The brain directory, refused while something may still write it: the user's cell (it was just stopped; one
 * running here means the stop did not take) or any cell holding the brain's lock (a cell another process runs).
 */
async function stoppedBrainDir(
  ctx: Pick<WardenContext, "home" | "config" | "cells">,
  userId: string,
): Promise<string> {
  if (ctx.cells.running(userId))
    throw new ConflictError("the brain is in use: the agent's cell did not stop; try again in a moment");
  const userDir = join(usersDir(ctx.config, ctx.home), userId);
  const holder = await brainLockHolder(join(userDir, "brain.lock"));
  if (holder !== undefined)
    throw new ConflictError(
      `the brain is in use by a running cell (pid ${holder}): stop it first, then restore`,
    );
  return restorableBrainDir(userDir, userId);
}
