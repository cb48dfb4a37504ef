import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  type LedgerEventInput,
  type OrderFile,
  orderFileSchema,
  worktreeCreateRequestSchema,
} from "../../contracts/index.js";
import {
  ConflictError,
  InvalidInputError,
  issuesFromZod,
  NotFoundError,
  nowIso,
  ValidationError,
} from "../../core/index.js";
import type { EventStore, OrderSnapshot } from "../../ledger/index.js";
import { hostGit } from "../git/host-git.js";
import {
  archiveBranch,
  commitStaged,
  isRegisteredWorktree,
  repoGit,
  resolveRef,
  unkeptCommitCount,
} from "./repo-git.js";
import { requireSafeId } from "./safe-id.js";
import { renderTaskMarkdown } from "./task-file.js";
import { realGitDir, type TheaterRecord, type TheaterRegistry } from "./theaters.js";
import {
  checkNoNestedGit,
  checkWorktree,
  uncommittedPaths,
  type WorktreeRef,
  worktreeGit,
  writeFileNoFollow,
} from "./worktree-guard.js";

export interface VaultOptions {
  theaters: TheaterRegistry;
  store: EventStore;
  /** The garrison_id of the events the vault appends (seed 000 §0), default "local". */
  garrisonId?: string;
}

export interface WorktreeCreateInput {
  theaterId: string;
  runId: string;
  orderId: string;
  /** Default `order_<orderId>` (seed 000 §3.4). */
  branch?: string;
}

/** POST /worktrees's answer (seed 000 §3.4). */
export interface WorktreeInfo {
  worktree_path: string;
  branch: string;
}

export interface PrepareOptions {
  /** task.md as given; default a rendering of the order. */
  taskMd?: string;
  /** The worker's starting state, written into state.json beside status, attempt and updated_at. */
  state?: Record<string, unknown>;
}

export interface ArchiveResult {
  tag: string;
  bundle_path: string;
  commit_sha: string;
}

interface Located {
  order: OrderSnapshot;
  theater: TheaterRecord;
  worktree: WorktreeRef;
  branch: string;
}

const gitBranch = worktreeCreateRequestSchema.shape.branch;
const LIVE = new Set(["CREATED", "READY"]);

/**
 * The vault (seed 000 §3.4): one git worktree per order, branched from its theater's main, under
 * `<theatersDir>/<theater>/worktrees/order_<id>`. Every change of a worktree's life is a ledger event, and the
 * ledger's order snapshot is where the vault finds a worktree again. Calls for one order run one at a time.
 */
export class Vault {
  private readonly theaters: TheaterRegistry;
  private readonly store: EventStore;
  private readonly garrisonId: string;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: VaultOptions) {
    this.theaters = options.theaters;
    this.store = options.store;
    this.garrisonId = options.garrisonId ?? "local";
  }

  /** Creates the order's worktree, or returns the one it already has (no second event). */
  async createWorktree(input: WorktreeCreateInput): Promise<WorktreeInfo> {
    const theaterId = requireSafeId("$.theater_id", input.theaterId);
    const runId = requireSafeId("$.run_id", input.runId);
    const orderId = requireSafeId("$.order_id", input.orderId);
    const branch = input.branch === undefined ? `order_${orderId}` : requireBranch(input.branch);
    return this.serially(orderId, async () => {
      const order = await this.requireOrder(orderId);
      if (order.theater_id !== theaterId || order.run_id !== runId)
        throw new ConflictError(
          `order ${orderId} belongs to run ${order.run_id} in theater ${order.theater_id}`,
        );
      if (
        order.worktree_state !== null &&
        LIVE.has(order.worktree_state) &&
        order.worktree_path &&
        order.branch
      )
        return { worktree_path: order.worktree_path, branch: order.branch };
      // Checked before git runs: the ledger would refuse the event and leave a worktree no event names.
      if (order.status === "CANCELLED") throw new ConflictError(`order ${orderId} is cancelled`);
      if (order.worktree_state === "ARCHIVED")
        throw new ConflictError(`order ${orderId}'s worktree is being archived; archive it again to finish`);
      const theater = await this.theaters.require(theaterId);
      const path = join(this.theaters.theaterDir(theaterId), "worktrees", `order_${orderId}`);
      const worktree = await refOf(theater, path);
      // A worktree made just before a crash, with no event yet, is taken over rather than made twice.
      if (existsSync(path)) {
        if (!(await isRegisteredWorktree(theater, path)))
          throw new ConflictError(`${path} exists but is not a worktree of ${theaterId}`);
      } else {
        await mkdir(dirname(path), { recursive: true });
        // A new order's branch from main in one git call; anything else (a reissued order whose branch was kept,
        // a stale registration left by a crash) is the slower way: prune, look for the branch, add.
        const added = await hostGit(theater.repo_path, addArgs(branch, path), { allowFailure: true });
        if (added.code !== 0) {
          await repoGit(theater, ["worktree", "prune"]);
          const kept = await resolveRef(theater, `refs/heads/${branch}`);
          await repoGit(theater, kept ? ["worktree", "add", "-q", path, branch] : addArgs(branch, path));
        }
      }
      await checkWorktree(worktree);
      await this.append(order, "WORKTREE_CREATED", { worktree_path: path, branch });
      return { worktree_path: path, branch };
    });
  }

  /** Writes order.json, task.md and state.json into the worktree, commits them and marks the worktree READY. */
  async prepare(
    orderId: string,
    order: unknown,
    options: PrepareOptions = {},
  ): Promise<{ commit_sha: string }> {
    const id = requireSafeId("$.order_id", orderId);
    const parsed = orderFileSchema.safeParse(order);
    if (!parsed.success)
      throw new ValidationError("worktree-prepare-request", issuesFromZod(parsed.error, ["order"]));
    const file: OrderFile = parsed.data;
    return this.serially(id, async () => {
      const { order: snapshot, worktree } = await this.locateLive(id);
      for (const key of ["order_id", "run_id", "theater_id"] as const) {
        if (file[key] !== snapshot[key])
          throw new InvalidInputError(
            `$.order.${key}`,
            `must be ${snapshot[key]}, the ledger's ${key} of this order`,
          );
      }
      if (snapshot.status === "CANCELLED") throw new ConflictError(`order ${id} is cancelled`);
      await checkWorktree(worktree);
      const state = {
        ...options.state,
        status: snapshot.status,
        attempt: snapshot.attempt,
        updated_at: nowIso(),
      };
      await writeFileNoFollow(join(worktree.path, "order.json"), `${JSON.stringify(file, null, 2)}\n`);
      await writeFileNoFollow(join(worktree.path, "task.md"), options.taskMd ?? renderTaskMarkdown(file));
      await writeFileNoFollow(join(worktree.path, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
      await worktreeGit(worktree, ["add", "--", "order.json", "task.md", "state.json"]);
      const sha = await commitStaged(worktree, `order ${id}: prepared`);
      if (snapshot.worktree_state === "CREATED") await this.append(snapshot, "WORKTREE_READY");
      return { commit_sha: sha };
    });
  }

  /** Commits everything in the worktree on the worker's behalf; returns the new HEAD, or the unchanged one. */
  async commitAll(orderId: string, message: string): Promise<string> {
    const id = requireSafeId("$.order_id", orderId);
    if (typeof message !== "string" || message.trim() === "")
      throw new InvalidInputError("$.message", "must be a non-empty commit message");
    return this.serially(id, async () => {
      const { worktree } = await this.locateLive(id);
      await checkWorktree(worktree);
      await checkNoNestedGit(worktree);
      // Nothing staged (a retry beginning on a clean worktree) leaves HEAD as it is (commitStaged).
      await worktreeGit(worktree, ["add", "-A"]);
      return commitStaged(worktree, message);
    });
  }

  /**
   * Keeps the branch tip as tag `archive/order_<id>` and as a bundle `<theater>/archive/order_<id>.bundle`, then
   * removes the worktree folder (the branch stays until remove). Refuses a worktree with uncommitted changes:
   * archiving keeps commits only.
   */
  async archive(orderId: string): Promise<ArchiveResult> {
    const id = requireSafeId("$.order_id", orderId);
    return this.serially(id, async () => {
      const { order, theater, worktree, branch } = await this.locate(id);
      const tag = `archive/order_${id}`;
      const bundlePath = join(this.theaters.theaterDir(theater.theater_id), "archive", `order_${id}.bundle`);
      if (order.worktree_state === "REMOVED") {
        const sha = await resolveRef(theater, `refs/tags/${tag}`);
        if (sha && existsSync(bundlePath)) return { tag, bundle_path: bundlePath, commit_sha: sha };
        throw new ConflictError(`order ${id}'s worktree was removed without being archived`);
      }
      const present = await isRegisteredWorktree(theater, worktree.path);
      if (present) {
        await checkWorktree(worktree);
        await refuseUncommitted(worktree);
      }
      const sha = await archiveBranch(theater, branch, tag, bundlePath);
      if (order.worktree_state !== "ARCHIVED") await this.append(order, "WORKTREE_ARCHIVED");
      if (present) await repoGit(theater, ["worktree", "remove", "--force", worktree.path]);
      await repoGit(theater, ["worktree", "prune"]);
      await this.append(order, "WORKTREE_REMOVED");
      return { tag, bundle_path: bundlePath, commit_sha: sha };
    });
  }

  /**
   * DELETE /worktrees/{order_id}: removes the worktree and its branch, refusing while anything would be lost —
   * uncommitted changes, or commits neither merged into main nor kept by an archive tag.
   */
  async remove(orderId: string): Promise<void> {
    const id = requireSafeId("$.order_id", orderId);
    return this.serially(id, async () => {
      const { order, theater, worktree, branch } = await this.locate(id);
      const present = await isRegisteredWorktree(theater, worktree.path);
      if (present) {
        await checkWorktree(worktree);
        await refuseUncommitted(worktree);
      }
      const hasBranch = (await resolveRef(theater, `refs/heads/${branch}`)) !== undefined;
      const unkept = hasBranch ? await unkeptCommitCount(theater, branch) : 0;
      if (unkept > 0)
        throw new ConflictError(
          `${unkept} commit${unkept === 1 ? "" : "s"} on ${branch} ${unkept === 1 ? "is" : "are"} neither merged into main nor archived`,
        );
      if (present) await repoGit(theater, ["worktree", "remove", "--force", worktree.path]);
      await repoGit(theater, ["worktree", "prune"]);
      if (hasBranch) await repoGit(theater, ["branch", "-D", branch]);
      if (order.worktree_state !== "REMOVED") await this.append(order, "WORKTREE_REMOVED");
    });
  }

  /** Where the order's worktree is, from the ledger's order snapshot; NotFoundError when it has none. */
  async worktreePath(orderId: string): Promise<string> {
    const { worktree } = await this.locateLive(requireSafeId("$.order_id", orderId));
    return worktree.path;
  }

  private async requireOrder(orderId: string): Promise<OrderSnapshot> {
    const order = await this.store.getOrder(orderId);
    if (!order) throw new NotFoundError("order", orderId);
    return order;
  }

  private async locate(orderId: string): Promise<Located> {
    const order = await this.requireOrder(orderId);
    if (!order.worktree_path || !order.branch || order.worktree_state === null)
      throw new NotFoundError("worktree of order", orderId);
    const theater = await this.theaters.require(order.theater_id);
    return { order, theater, worktree: await refOf(theater, order.worktree_path), branch: order.branch };
  }

  private async locateLive(orderId: string): Promise<Located> {
    const located = await this.locate(orderId);
    if (!LIVE.has(located.order.worktree_state ?? "")) throw new NotFoundError("worktree of order", orderId);
    return located;
  }

  private append(
    order: OrderSnapshot,
    type: LedgerEventInput["type"],
    payload: Record<string, unknown> = {},
  ) {
    return this.store.append({
      type,
      garrison_id: this.garrisonId,
      theater_id: order.theater_id,
      run_id: order.run_id,
      order_id: order.order_id,
      unit_id: null,
      payload,
    });
  }

  /** Runs one order's calls one after another, so two creates of one order make one worktree and one event. */
  private serially<T>(orderId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(orderId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(orderId, settled);
    void settled.then(() => {
      if (this.queues.get(orderId) === settled) this.queues.delete(orderId);
    });
    return result;
  }
}

async function refOf(theater: TheaterRecord, path: string): Promise<WorktreeRef> {
  return { path, adminDir: join(await realGitDir(theater), "worktrees", basename(path)) };
}

function addArgs(branch: string, path: string): string[] {
  return ["worktree", "add", "-q", "-b", branch, path, "refs/heads/main"];
}

async function refuseUncommitted(worktree: WorktreeRef): Promise<void> {
  await checkNoNestedGit(worktree);
  const paths = await uncommittedPaths(worktree);
  if (paths.length > 0) throw new ConflictError(`uncommitted changes: ${paths.join(", ")}`);
}

function requireBranch(branch: string): string {
  const result = gitBranch.safeParse(branch);
  if (!result.success)
    throw new InvalidInputError("$.branch", result.error.issues.map((i) => i.message).join("; "));
  return branch;
}
