import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createBwrapBackend, defaultRuntime } from "../../src/cells/index.js";
import {
  CellGateRunner,
  copyTreeIn,
  type GateCellSpec,
  type GateRequest,
  type GateRunner,
  hostGit,
} from "../../src/command/index.js";
import type { LedgerEventInput } from "../../src/contracts/index.js";
import { SqliteEventStore } from "../../src/ledger/index.js";

/**
 * A theater for integration tests: a real git repository with a `main`, order worktrees on `order_<id>` branches
 * as the vault makes them, and a real SQLite ledger in which each order has run to ORDER_COMPLETED.
 */
export class IntegrationTheater {
  readonly repo: string;
  readonly theaterId = "demo";
  readonly runId = "run_1";
  readonly owner = "ada";
  private constructor(
    readonly home: string,
    readonly store: SqliteEventStore,
  ) {
    this.repo = join(home, "repo");
  }

  static async create(): Promise<IntegrationTheater> {
    const home = await mkdtemp(join(tmpdir(), "ironclaw-integration-"));
    await chmod(home, 0o755);
    const store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
    const theater = new IntegrationTheater(home, store);
    await mkdir(theater.repo);
    await hostGit(theater.repo, ["init", "-q", "-b", "main"]);
    await theater.commitOnMain({ "README.md": "# Demo\n", "shared.txt": "one\ntwo\nthree\n" }, "start");
    await store.append(theater.event("RUN_CREATED", null, { objective: "Integrate some orders" }));
    return theater;
  }

  readonly theaters = { require: async () => ({ repo_path: this.repo, owner: this.owner }) };

  event(type: LedgerEventInput["type"], orderId: string | null, payload: Record<string, unknown> = {}) {
    const unit = type === "ORDER_CLAIMED" || type === "ORDER_STARTED" ? "assault_1" : null;
    return {
      type,
      garrison_id: "local",
      theater_id: this.theaterId,
      run_id: this.runId,
      order_id: orderId,
      unit_id: unit,
      payload,
    } satisfies LedgerEventInput;
  }

  /** Commits files straight onto main (checked out in the repository, as the vault makes it). */
  async commitOnMain(files: Record<string, string>, message: string): Promise<string> {
    await writeFiles(this.repo, files);
    await hostGit(this.repo, ["add", "-A"]);
    await hostGit(this.repo, ["commit", "-q", "-m", message]);
    return this.main();
  }

  async main(): Promise<string> {
    return (await hostGit(this.repo, ["rev-parse", "main"])).stdout.trim();
  }

  /** The merge commits main's first-parent line holds. */
  async mergesOnMain(): Promise<string[]> {
    const out = await hostGit(this.repo, ["rev-list", "--first-parent", "--merges", "main"]);
    return out.stdout.split("\n").filter(Boolean);
  }

  /**
   * An order that ran to ORDER_COMPLETED: its worktree on `order_<id>` holds `files`, order.json listing
   * `acceptance` and an aar.json naming `artifacts`, all committed.
   */
  async completedOrder(
    orderId: string,
    options: {
      files: Record<string, string>;
      /** Symlinks committed in the order's tree: name → target. */
      links?: Record<string, string>;
      acceptance?: string[];
      artifacts?: string[];
    },
  ): Promise<string> {
    const worktree = join(this.home, "worktrees", `order_${orderId}`);
    const branch = `order_${orderId}`;
    await mkdir(dirname(worktree), { recursive: true });
    await hostGit(this.repo, ["worktree", "add", "-q", "-b", branch, worktree, "main"]);
    const order = {
      order_id: orderId,
      run_id: this.runId,
      theater_id: this.theaterId,
      type: "draft",
      objective: "Change the demo",
      inputs: options.acceptance ? { acceptance_tests: options.acceptance } : {},
      constraints: { budget_seconds: 60, max_retries: 1 },
      profile: { name: "executor_default", model: "stand-in" },
    };
    const artifacts = (options.artifacts ?? Object.keys(options.files)).map((path) => ({
      path,
      type: "text/plain",
    }));
    const aar = {
      order_id: orderId,
      status: "completed",
      completed_at: "2026-11-27T12:00:00Z",
      summary: "Changed the demo",
      artifacts,
      model: { provider: "local", name: "stand-in" },
    };
    await writeFiles(worktree, {
      ...options.files,
      "order.json": JSON.stringify(order, null, 2),
      "aar.json": JSON.stringify(aar, null, 2),
    });
    for (const [name, target] of Object.entries(options.links ?? {}))
      await symlink(target, join(worktree, name));
    await hostGit(worktree, ["add", "-A"]);
    await hostGit(worktree, ["commit", "-q", "-m", `order ${orderId}`]);
    await this.store.appendBatch([
      this.event("ORDER_CREATED", orderId),
      this.event("ORDER_ENQUEUED", orderId),
      this.event("WORKTREE_CREATED", orderId, { worktree_path: worktree, branch }),
      this.event("WORKTREE_READY", orderId),
      this.event("ORDER_CLAIMED", orderId),
      this.event("ORDER_STARTED", orderId, { attempt: 1 }),
      this.event("AAR_WRITTEN", orderId, { path: "aar.json" }),
      this.event("ORDER_COMPLETED", orderId),
    ]);
    return worktree;
  }

  async eventTypes(orderId: string): Promise<string[]> {
    return (await this.store.read({ orderId })).map((e) => e.type);
  }

  async close(): Promise<void> {
    await this.store.close();
    await rm(this.home, { recursive: true, force: true });
  }
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

export const bwrapUsable =
  spawnSync("bwrap", ["--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true"]).status ===
  0;

const CELL_OWNER = { uid: 61_411, gid: 61_411 };

/**
 * Real bwrap gate cells (the `gate` handler, no network, a uid of their own) for a CellGateRunner; the merged tree
 * goes in through the cell's file operations, as command's cells copy an order's tree, or with `attach` is bound
 * at the cell's work/ (its .git masked) as command's cells get it where the backend can.
 */
export function bwrapGateRunner(
  home: string,
  options: { attach?: boolean } = {},
): { runner: CellGateRunner; started: () => number } {
  const backend = createBwrapBackend({ runtime: defaultRuntime(), brainImages: false, onWarning: () => {} });
  let count = 0;
  const runner = new CellGateRunner({
    cells: {
      async start(spec: GateCellSpec) {
        count += 1;
        const userDir = join(home, "cells", `${spec.orderId}-${count}`);
        const workSlot = options.attach === true;
        return backend.start({ userId: spec.userId, userDir, handler: "gate", runAs: CELL_OWNER, workSlot });
      },
      async release(cell) {
        await cell.stop({ timeoutMs: 5_000 });
      },
    },
    copyTreeIn,
  });
  return { runner, started: () => count };
}

/** A gate's answer in which every command passed: for tests of what integration does around a passing gate. */
export function passingGate(request: GateRequest) {
  return {
    results: request.commands.map((command) => ({
      command,
      exit: 0,
      stdout_tail: "",
      stderr_tail: "",
      timed_out: false,
    })),
    skipped: [],
  };
}

/** Gates that pass every command without a cell. */
export const passingGates: GateRunner = { run: async (request) => passingGate(request) };
