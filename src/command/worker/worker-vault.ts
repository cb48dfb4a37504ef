import { existsSync } from "node:fs";
import { join } from "node:path";
import type { JobMessage, OrderFile } from "../../contracts/index.js";
import { extrasOf } from "./order-dispatch.js";

/** What a worker needs of the vault: the order's worktree, ready to work in, and a commit of all of it. */
export interface WorkerVault {
  /**
   * The order's worktree with order.json and task.md in it, created and prepared on first use; `prepared` is the
   * commit that preparing it just made (its HEAD, with nothing left to commit), absent when it was there already.
   */
  openWorktree(job: JobMessage): Promise<{ path: string; prepared?: string }>;
  /** Commits everything in the worktree (host git, hooks off); returns the new HEAD, or the unchanged one. */
  commitAll(orderId: string, message: string): Promise<string>;
}

/** The part of the vault (vault/worktrees.ts) the adapter calls. */
export interface VaultWorktrees {
  createWorktree(input: {
    theaterId: string;
    runId: string;
    orderId: string;
  }): Promise<{ worktree_path: string }>;
  prepare(orderId: string, order: unknown): Promise<{ commit_sha: string }>;
  commitAll(orderId: string, message: string): Promise<string>;
}

/** order.json as the job describes the order (the commanding officer puts the order's fields in the job). */
export function orderFileOf(job: JobMessage): OrderFile {
  const extras = extrasOf(job);
  return {
    order_id: job.order_id,
    run_id: job.run_id,
    theater_id: job.theater_id,
    type: extras.type ?? "code",
    objective: extras.objective ?? `Order ${job.order_id}`,
    inputs: {
      ...extras.inputs,
      ...(extras.acceptance_commands?.length ? { acceptance_tests: extras.acceptance_commands } : {}),
    },
    constraints: job.constraints,
    profile: job.profile,
  };
}

/** A WorkerVault over the vault: creates the worktree (idempotent) and prepares it once. */
export function workerVaultOf(vault: VaultWorktrees): WorkerVault {
  return {
    async openWorktree(job) {
      const { worktree_path } = await vault.createWorktree({
        theaterId: job.theater_id,
        runId: job.run_id,
        orderId: job.order_id,
      });
      if (existsSync(join(worktree_path, "order.json"))) return { path: worktree_path };
      const { commit_sha } = await vault.prepare(job.order_id, orderFileOf(job));
      return { path: worktree_path, prepared: commit_sha };
    },
    commitAll: (orderId, message) => vault.commitAll(orderId, message),
  };
}
