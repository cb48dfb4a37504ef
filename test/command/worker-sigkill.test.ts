import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EventStore, openStore } from "../../src/ledger/index.js";
import { type CliProcess, killAll, spawnIronclaw } from "../support/cli-process.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { askerOf, notesPlan, orderTurn, setUpCommandHome } from "../support/worker-script.js";

// Two `ironclaw worker` processes share IRONCLAW_HOME's ledger.db and queue.db; `ironclaw run --wait` plans,
// integrates and answers, as a user would run it. The scripted model holds one order's first turn, the worker
// holding that order is killed with SIGKILL mid-order, and the other worker takes the order over once its lease
// (a short [command] lease_seconds) runs out: the order is reissued, finished, and merged once.

const LEASE_SECONDS = 10;
let root: string;
let home: string;
let model: ModelServer;
const processes = new Set<CliProcess>();

beforeAll(async () => {
  model = await startModelServer();
  root = mkdtempSync(join(tmpdir(), "ironclaw-worker-kill-"));
  home = join(root, "home");
  await setUpCommandHome({ IRONCLAW_HOME: home }, model.url, `workers = 0\nlease_seconds = ${LEASE_SECONDS}`);
}, 120_000);
afterEach(async () => {
  await killAll(processes);
  processes.clear();
});
afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function ironclaw(...args: string[]): CliProcess {
  const p = spawnIronclaw(args, { IRONCLAW_HOME: home });
  processes.add(p);
  return p;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pid in a worker id (`<host>-<pid>-<ulid>`, command-service.ts). */
const pidOf = (workerId: string) => Number(workerId.split("-").at(-2));

describe("a worker killed mid-order", () => {
  it("loses the order when its lease runs out; the other worker finishes it and it is merged once", async ({
    onTestFailed,
  }) => {
    // Where it stopped, when it does: the ledger so far and what each process printed.
    onTestFailed(async () => {
      const store = await openStore({ kind: "sqlite", path: join(home, "ledger.db") });
      const events = await store.read({ limit: 1000 });
      await store.close();
      console.error(events.map((e) => `${e.ts} ${e.type} ${e.order_id ?? ""} ${JSON.stringify(e.payload)}`));
      for (const p of processes)
        console.error(`${p.pid} ${p.child.spawnargs.slice(3).join(" ")}:\n${p.output()}`);
    });
    let held: string | undefined;
    model.respondWith((body) => {
      const asker = askerOf(body);
      if (asker?.kind === "planner") return reply.text(notesPlan([{ key: "slow" }, { key: "quick" }]));
      if (asker?.kind !== "order") return reply.status(400, "not a request this test expects");
      // The slow order's first turn is held (headers, then silence): its worker is mid-order until killed.
      if (asker.file === "notes/slow.md" && held === undefined) {
        held = asker.orderId;
        return reply.stall();
      }
      return orderTurn(asker);
    });
    const run = ironclaw("run", "--theater", "demo", "Write two notes", "--wait", "--json");
    const workers = [ironclaw("worker"), ironclaw("worker")];
    await Promise.all(workers.map((w) => w.waitFor(/worker running/, 60_000)));

    const store: EventStore = await openStore({ kind: "sqlite", path: join(home, "ledger.db") });
    try {
      const slowId = await until(() => held, 60_000);
      const started = await until(async () => {
        const events = await store.read({ orderId: slowId, types: ["ORDER_STARTED"] });
        return events[0]?.payload as { worker_id: string } | undefined;
      }, 10_000);
      const holder = workers.find((w) => w.pid === pidOf(started.worker_id));
      const other = workers.find((w) => w !== holder);
      if (!holder || !other) throw new Error(`no worker process has pid ${pidOf(started.worker_id)}`);
      holder.child.kill("SIGKILL");
      expect(await holder.exited).toBe("SIGKILL");

      const code = await run.exited;
      const done = JSON.parse(run.output().trim().split("\n").at(-1) ?? "{}") as { status?: string };
      expect({ code, status: done.status }).toEqual({ code: 0, status: "COMPLETE" });

      // The ledger tells it: started by the killed worker, reissued, started again by the other, merged once.
      const story = await store.read({ orderId: slowId });
      const types = story.map((e) => e.type);
      expect(types.filter((t) => t === "ORDER_STARTED")).toHaveLength(2);
      expect(types.filter((t) => t === "INTEGRATED")).toHaveLength(1);
      const reissued = story.find((e) => e.type === "ORDER_REISSUED");
      expect(reissued?.payload).toMatchObject({ attempt: 2, reason: "the worker holding it stopped" });
      const second = story.filter((e) => e.type === "ORDER_STARTED")[1]?.payload as { worker_id: string };
      expect(pidOf(second.worker_id)).toBe(other.pid);
      const order = await store.getOrder(slowId);
      expect(order).toMatchObject({ status: "COMPLETED", integration_state: "INTEGRATED", attempt: 2 });

      // The theater's main: one merge per order, the slow order's merge the one its INTEGRATED names.
      const repo = join(home, "theaters", "demo", "repo");
      const git = (...args: string[]) =>
        spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
      const merges = git("log", "--merges", "--format=%H", "main").split("\n");
      expect(merges).toHaveLength(2);
      const integrated = story.find((e) => e.type === "INTEGRATED")?.payload as { commit_sha: string };
      expect(merges).toContain(integrated.commit_sha);
      expect(git("ls-tree", "--name-only", "main", "notes/").split("\n").sort()).toEqual([
        "notes/quick.md",
        "notes/slow.md",
      ]);
    } finally {
      await store.close();
    }
  }, 240_000);
});
