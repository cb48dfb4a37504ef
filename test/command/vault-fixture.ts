import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TheaterRegistry } from "../../src/command/vault/theaters.js";
import { Vault } from "../../src/command/vault/worktrees.js";
import type { OrderFile } from "../../src/contracts/index.js";
import { SqliteEventStore } from "../../src/ledger/index.js";

/** A vault on a temporary theaters folder and a real SQLite ledger, with theater `demo` owned by u_1. */
export interface VaultFixture {
  dir: string;
  theaters: TheaterRegistry;
  store: SqliteEventStore;
  vault: Vault;
  repo: string;
  /** Records run r1 and one order in the ledger, as CO would before asking for a worktree. */
  addOrder(orderId: string): Promise<void>;
  close(): Promise<void>;
}

export async function openVaultFixture(): Promise<VaultFixture> {
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-vault-"));
  const theaters = new TheaterRegistry(join(dir, "theaters"));
  const store = await SqliteEventStore.open({ path: join(dir, "ledger.db") });
  const vault = new Vault({ theaters, store });
  const { repo_path } = await theaters.add({ theaterId: "demo", owner: "u_1" });
  let runCreated = false;
  return {
    dir,
    theaters,
    store,
    vault,
    repo: repo_path,
    async addOrder(orderId) {
      const base = { garrison_id: "local", theater_id: "demo", run_id: "r1", unit_id: null };
      if (!runCreated)
        await store.append({ ...base, type: "RUN_CREATED", payload: { objective: "Summarize" } });
      runCreated = true;
      await store.append({ ...base, type: "ORDER_CREATED", order_id: orderId, payload: {} });
    },
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function orderFile(orderId: string, extra: Record<string, unknown> = {}): OrderFile {
  return {
    order_id: orderId,
    run_id: "r1",
    theater_id: "demo",
    type: "draft",
    objective: "Summarize the input into 5 bullets",
    inputs: { text: "IronClaw keeps every order in its own worktree." },
    constraints: { budget_seconds: 60, max_retries: 1, tool_policy: { network: false } },
    profile: { name: "executor_default", model: "test-model" },
    ...extra,
  };
}

/** Plain git, as a person inspecting the repository would run it (the tests' independent view). */
export function git(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const result = spawnSync("git", args, { cwd, encoding: "utf8" });
  return { code: result.status, out: `${result.stdout}${result.stderr}`.trim() };
}

export async function worktreeEvents(store: SqliteEventStore, orderId: string): Promise<string[]> {
  const events = await store.read({ orderId });
  return events.map((e) => e.type).filter((type) => type.startsWith("WORKTREE_"));
}
