import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBwrapBackend } from "../../src/cells/index.js";
import { SqliteJobQueue } from "../../src/command/index.js";
import { Worker, type WorkerOptions, workerVaultOf } from "../../src/command/worker/index.js";
import { aarFileSchema, ironclawdConfigSchema, type JobMessage } from "../../src/contracts/index.js";
import { createLogger } from "../../src/core/index.js";
import { ModelBudget } from "../../src/warden/budget/index.js";
import { HostProviders, openHostDb, WardenCommandCells } from "../../src/warden/index.js";
import { removeTestBundle, testBundleRuntime } from "../cells/test-bundle.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { git, openVaultFixture, type VaultFixture } from "./vault-fixture.js";

/**
 * The worker end to end, in real bwrap agent cells talking to a scripted model through the warden's proxy, on a
 * real ledger, queue and git theater: what an order's agent writes lands in the worktree and is committed by the
 * host, and what it must not (links, a .git) does not.
 */
let server: ModelServer;
let fx: VaultFixture;
let queue: SqliteJobQueue;
let hostDb: Database.Database;
let worker: Worker;
let options: WorkerOptions;
let cells: WardenCommandCells;

const USER = "worker-user";

beforeAll(async () => {
  server = await startModelServer();
  fx = await openVaultFixture();
  queue = await SqliteJobQueue.open(join(fx.dir, "queue.db"));
  const config = ironclawdConfigSchema.parse({ new_brains: { provider: "local", model: "test-model" } });
  hostDb = openHostDb(join(fx.dir, "host"));
  const budget = new ModelBudget({ db: hostDb, config, owner: `worker-test/${process.pid}` });
  cells = new WardenCommandCells({
    backend: createBwrapBackend({ runtime: await testBundleRuntime() }),
    scratchDir: join(fx.dir, "command-cells"),
    config,
    providers: new HostProviders({ providers: { local: { base_url: server.url, models: [] } } }, {}),
    cellUidOf: () => 60_321,
    audit: () => {},
    logger: createLogger("test", { level: "silent" }),
    budget,
    readyTimeoutMs: 60_000,
  });
  options = {
    store: fx.store,
    queue,
    vault: workerVaultOf(fx.vault),
    cells,
    workerId: "w1",
    leaseMs: 30_000,
    ownerOf: async () => USER,
    modelProvider: "local",
  };
  worker = new Worker(options);
}, 120_000);
afterAll(async () => {
  await cells?.releaseAll();
  await queue?.close();
  hostDb?.close();
  await fx?.close();
  await server?.close();
  await removeTestBundle();
});
beforeEach(() => server.reset());

function jobFor(orderId: string, attempt = 1): JobMessage {
  return {
    job_type: "EXECUTE_ORDER",
    order_id: orderId,
    run_id: "r1",
    theater_id: "demo",
    unit_id: `assault_${orderId}`,
    worktree_path: join(fx.dir, "theaters", "demo", "worktrees", `order_${orderId}`),
    attempt,
    profile: { name: "executor_default", model: "test-model" },
    constraints: { budget_seconds: 60, max_retries: 1 },
    tool_policy: { network: false },
    type: "draft",
    objective: "Write a five-bullet summary into notes/summary.md",
    inputs: {},
    acceptance_commands: ["test -s notes/summary.md"],
  } as JobMessage;
}

function completion(orderId: string, leaveOut?: string): string {
  const fields: Record<string, unknown> = {
    run_id: orderId,
    branch: `jarvis-order_${orderId}`,
    commit_sha: "abc1234",
    files_changed: ["notes/summary.md"],
    test_result: "test -s notes/summary.md passed",
    risk: "low - one new file",
    pr_skipped_reason: "the host integrates the worktree",
  };
  if (leaveOut) delete fields[leaveOut];
  return `Done: the summary is written.\n<completion>\n${JSON.stringify(fields, null, 2)}\n</completion>`;
}

const writeSummary = () =>
  reply.toolCalls([
    {
      name: "file",
      arguments: { action: "write", path: "work/notes/summary.md", content: "- one\n- two\n" },
    },
  ]);

async function orderEvents(orderId: string): Promise<string[]> {
  return (await fx.store.read({ orderId })).map((e) => e.type);
}

async function aarOf(orderId: string) {
  const worktree = await fx.vault.worktreePath(orderId);
  return aarFileSchema.parse(JSON.parse(await readFile(join(worktree, "aar.json"), "utf8")));
}

describe("a worker running orders in command cells", () => {
  it("lands the agent's files in the worktree, committed, with a valid AAR and the events in order; a second delivery runs nothing", async () => {
    await fx.addOrder("o1");
    await queue.enqueue(jobFor("o1"));
    server.enqueue(writeSummary(), reply.text(completion("o1")));

    const outcome = await worker.runOnce();
    expect(outcome).toMatchObject({ kind: "ran", orderId: "o1", attempt: 1, status: "review_requested" });

    const worktree = await fx.vault.worktreePath("o1");
    expect(git(worktree, "show", "HEAD:notes/summary.md").out).toBe("- one\n- two");
    expect(git(worktree, "status", "--porcelain").out).toBe("");
    expect(await readFile(join(worktree, "outputs/model_output.txt"), "utf8")).toContain("<completion>");
    const aar = await aarOf("o1");
    expect(aar).toMatchObject({
      order_id: "o1",
      status: "completed",
      model: { provider: "local", name: "test-model" },
    });
    expect(aar.artifacts.map((a) => a.path)).toEqual(["outputs/model_output.txt", "outputs/completion.json"]);
    expect(await orderEvents("o1")).toEqual([
      "ORDER_CREATED",
      "ORDER_STARTED",
      "WORKTREE_CREATED",
      "WORKTREE_READY",
      "ARTIFACT_WRITTEN",
      "ARTIFACT_WRITTEN",
      "AAR_WRITTEN",
      "ORDER_COMPLETED",
    ]);
    expect((await fx.store.getOrder("o1"))?.status).toBe("COMPLETED");
    // Charged to the order's user, recorded against the run and the order.
    const usage = hostDb.prepare("SELECT DISTINCT user_id, session, job FROM usage_calls").all();
    expect(usage).toEqual([{ user_id: USER, session: "run:r1", job: "order:o1" }]);
    expect(existsSync(join(fx.dir, "command-cells", "order-o1"))).toBe(false);

    // The same job delivered again (under another queue key, as a second dispatcher could): done once.
    const requestsBefore = server.chatRequests().length;
    expect(await queue.enqueue(jobFor("o1"), { key: "o1-again" })).toMatchObject({ duplicate: false });
    expect(await worker.runOnce()).toMatchObject({
      kind: "skipped",
      reason: "the order is already COMPLETED",
    });
    expect(server.chatRequests().length).toBe(requestsBefore);
    expect(await orderEvents("o1")).toHaveLength(8);
  }, 120_000);

  it("fails a completion missing a field as failed_contract, reissues it, and the next attempt succeeds", async () => {
    await fx.addOrder("o2");
    await queue.enqueue(jobFor("o2"));
    server.enqueue(writeSummary(), reply.text(completion("o2", "risk")));

    expect(await worker.runOnce()).toMatchObject({
      kind: "ran",
      attempt: 1,
      status: "failed_contract",
      retried: true,
    });
    const failed = (await fx.store.read({ orderId: "o2", types: ["ORDER_FAILED"] }))[0];
    expect(String(failed?.payload.reason)).toMatch(/^failed_contract: \$\.risk is required/);
    expect((await aarOf("o2")).status).toBe("failed");

    server.enqueue(reply.text(completion("o2")));
    expect(await worker.runOnce()).toMatchObject({ kind: "ran", attempt: 2, status: "review_requested" });
    expect(await orderEvents("o2")).toEqual([
      "ORDER_CREATED",
      "ORDER_STARTED",
      "WORKTREE_CREATED",
      "WORKTREE_READY",
      "ARTIFACT_WRITTEN",
      "AAR_WRITTEN",
      "ORDER_FAILED",
      "ORDER_REISSUED",
      "ORDER_ENQUEUED",
      "ORDER_STARTED",
      "ARTIFACT_WRITTEN",
      "ARTIFACT_WRITTEN",
      "AAR_WRITTEN",
      "ORDER_COMPLETED",
    ]);
    expect(await fx.store.getOrder("o2")).toMatchObject({ status: "COMPLETED", attempt: 2 });
    expect(await queue.counts()).toMatchObject({ waiting: 0, held: 0 });
  }, 120_000);

  it("refuses an attempt whose agent wrote a link out of the tree, a .git or outside its allowlist: none of it kept, and no hook runs on the host", async () => {
    await fx.addOrder("o3");
    const job = jobFor("o3");
    await queue.enqueue({
      ...job,
      constraints: { ...job.constraints, max_retries: 0 },
      tool_policy: { network: false, fs_allowlist: ["notes/"] },
    });
    const marker = join(fx.dir, "hook-ran");
    const plant = [
      "cd /mnt/brain/work",
      "mkdir -p notes/.git/hooks",
      "ln -s /etc/passwd notes/passwd-link",
      "ln -s ../../.git notes/git-link",
      `printf '#!/bin/sh\\ntouch ${marker}\\n' > notes/.git/hooks/post-commit`,
      "chmod +x notes/.git/hooks/post-commit",
      "echo 'gitdir: notes/.git' > .git",
      "echo '- planted' > notes/summary.md",
      "echo outside > planted.txt",
      "ls -la notes notes/.git/hooks; echo git=[$(cat .git)]",
    ].join("; ");
    server.enqueue(
      reply.toolCalls([{ name: "bash", arguments: { command: plant } }]),
      reply.text(completion("o3")),
    );

    expect(await worker.runOnce()).toMatchObject({ kind: "ran", status: "failed", retried: false });
    // The probe ran in the cell: the links, the hook and a .git file pointing at it were there.
    const toolOutput = JSON.stringify(server.chatRequests()[1]?.messages);
    expect(toolOutput).toContain("passwd-link -> /etc/passwd");
    expect(toolOutput).toContain("git-link -> ../../.git");
    expect(toolOutput).toContain("post-commit");
    expect(toolOutput).toContain("git=[gitdir: notes/.git]");

    const failed = (await fx.store.read({ orderId: "o3", types: ["ORDER_FAILED"] }))[0];
    const reason = String(failed?.payload.reason);
    expect(reason).toContain("the cell's changes to the worktree were refused, none kept");
    expect(reason).toContain(".git: a .git the host's git would read");
    expect(reason).toContain("notes/.git: a .git the host's git would read");
    expect(reason).toContain("notes/passwd-link: a link to /etc/passwd, outside the tree or into .git");
    expect(reason).toContain("notes/git-link: a link to ../../.git, outside the tree or into .git");
    expect(reason).toContain("planted.txt: outside the order's fs_allowlist");

    const worktree = await fx.vault.worktreePath("o3");
    for (const gone of [
      "notes/passwd-link",
      "notes/git-link",
      "notes/.git",
      "notes/summary.md",
      "planted.txt",
    ])
      expect(existsSync(join(worktree, gone))).toBe(false);
    expect(await readFile(join(worktree, ".git"), "utf8")).toMatch(/^gitdir: \//);
    expect(git(worktree, "ls-files").out.split("\n")).not.toContain("notes/summary.md");
    expect(git(worktree, "status", "--porcelain").out).toBe("");
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it("takes over an order whose worker died (its lease ran out) by reissuing it, and fails it when no retry is left", async () => {
    const started = (orderId: string) =>
      fx.store.append({
        type: "ORDER_STARTED",
        garrison_id: "local",
        theater_id: "demo",
        run_id: "r1",
        order_id: orderId,
        unit_id: `assault_${orderId}`,
        payload: { attempt: 1 },
      });
    // A worker that started o4 and o5 and then died: it claimed their jobs and never renewed the leases.
    await fx.addOrder("o4");
    await fx.addOrder("o5");
    await started("o4");
    await started("o5");
    await queue.enqueue(jobFor("o4"));
    await queue.enqueue({ ...jobFor("o5"), constraints: { budget_seconds: 60, max_retries: 0 } });
    const held = [await queue.claim("dead-worker", 300), await queue.claim("dead-worker", 300)];
    expect(held.map((claim) => claim?.job.order_id).sort()).toEqual(["o4", "o5"]);
    await new Promise((resolve) => setTimeout(resolve, 400));

    server.enqueue(writeSummary(), reply.text(completion("o4")));
    expect(await worker.runOnce()).toMatchObject({
      kind: "ran",
      orderId: "o4",
      attempt: 2,
      status: "review_requested",
    });
    expect((await orderEvents("o4")).slice(0, 4)).toEqual([
      "ORDER_CREATED",
      "ORDER_STARTED",
      "ORDER_REISSUED",
      "ORDER_STARTED",
    ]);
    expect(await fx.store.getOrder("o4")).toMatchObject({ status: "COMPLETED", attempt: 2 });

    const requests = server.chatRequests().length;
    expect(await worker.runOnce()).toMatchObject({
      kind: "skipped",
      orderId: "o5",
      reason: expect.stringMatching(/^failed: the worker of attempt 1 stopped; retry limit reached/),
    });
    expect(await fx.store.getOrder("o5")).toMatchObject({ status: "FAILED", attempt: 1 });
    expect(server.chatRequests().length).toBe(requests);
  }, 120_000);

  it("keeps a superseded attempt's files out of the worktree and off its branch, and records nothing for it", async () => {
    await fx.addOrder("o7");
    await queue.enqueue(jobFor("o7"));
    let answer = () => {};
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    server.enqueue(reply.held(held, writeSummary()), reply.text(completion("o7")));
    const requests = server.chatRequests().length;
    const running = worker.runOnce();
    // The agent of attempt 1 is waiting on its model when the duty officer reissues the order and another
    // worker starts attempt 2 in the same worktree.
    while (server.chatRequests().length === requests) await new Promise((r) => setTimeout(r, 20));
    const worktree = await fx.vault.worktreePath("o7");
    const head = git(worktree, "rev-parse", "HEAD").out;
    const ids = { garrison_id: "local", theater_id: "demo", run_id: "r1", order_id: "o7", unit_id: null };
    await fx.store.appendBatch([
      { ...ids, type: "ORDER_REISSUED", payload: { attempt: 2, reason: "overdue" } },
      { ...ids, type: "ORDER_STARTED", payload: { attempt: 2, worker_id: "w-next" } },
    ]);
    answer();

    expect(await running).toMatchObject({ kind: "superseded", orderId: "o7", attempt: 1 });
    expect(git(worktree, "rev-parse", "HEAD").out).toBe(head);
    expect(git(worktree, "status", "--porcelain").out).toBe("");
    expect(existsSync(join(worktree, "notes/summary.md"))).toBe(false);
    expect(existsSync(join(worktree, "aar.json"))).toBe(false);
    expect((await orderEvents("o7")).slice(-2)).toEqual(["ORDER_REISSUED", "ORDER_STARTED"]);
    expect(await fx.store.getOrder("o7")).toMatchObject({ status: "RUNNING", attempt: 2 });
  }, 120_000);

  it("runs jobs as they arrive once started, and stop() returns once the loop is idle", async () => {
    await fx.addOrder("o6");
    const looping = new Worker({ ...options, workerId: "w2", idleMs: 20 });
    looping.start(2);
    server.enqueue(writeSummary(), reply.text(completion("o6")));
    await queue.enqueue(jobFor("o6"));
    while ((await fx.store.getOrder("o6"))?.status !== "COMPLETED")
      await fx.store.waitForAppend(await fx.store.head(), { timeoutMs: 1_000 });
    await looping.stop();
    expect(await queue.counts()).toMatchObject({ waiting: 0, held: 0 });
    expect(await worker.runOnce()).toEqual({ kind: "idle" });
  }, 120_000);
});
