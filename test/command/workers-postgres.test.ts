import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EventStore, openStore } from "../../src/ledger/index.js";
import { type CliProcess, killAll, spawnIronclaw } from "../support/cli-process.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { askerOf, notesPlan, orderTurn, setUpCommandHome } from "../support/worker-script.js";

// Scale-out end to end: the ledger and the queue on PostgreSQL, two `ironclaw worker --postgres` processes
// claiming the orders, `ironclaw run --wait` planning, integrating and answering. Three orders, the third after
// the other two: each worked in a cell over its own worktree, gated, merged in dependency order, synthesized.
// Runs under `npm run test:postgres`, whose throwaway cluster exports the URL; skipped in the default suite.

const clusterUrl = process.env.IRONCLAW_TEST_POSTGRES_URL ?? "";
const database = `workers_${process.pid}_${Date.now().toString(36)}`;
let url: string;
let root: string;
let home: string;
let model: ModelServer;
const processes = new Set<CliProcess>();

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  if (!clusterUrl) return;
  // A database of this file's own: the ledger's and the queue's tables are exactly what these processes made.
  await admin(`CREATE DATABASE ${database}`);
  const parsed = new URL(clusterUrl);
  parsed.pathname = `/${database}`;
  url = parsed.toString();
  model = await startModelServer();
  root = mkdtempSync(join(tmpdir(), "ironclaw-workers-pg-"));
  home = join(root, "home");
  await setUpCommandHome({ IRONCLAW_HOME: home, IRONCLAW_LEDGER_URL: url }, model.url, "workers = 0");
}, 120_000);
afterEach(async () => {
  await killAll(processes);
  processes.clear();
});
afterAll(async () => {
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  if (url) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

function ironclaw(...args: string[]): CliProcess {
  const p = spawnIronclaw(args, { IRONCLAW_HOME: home, IRONCLAW_LEDGER_URL: url });
  processes.add(p);
  return p;
}

/** The pid in a worker id (`<host>-<pid>-<ulid>`, command-service.ts). */
const pidOf = (workerId: string) => Number(workerId.split("-").at(-2));

describe.skipIf(!clusterUrl)("command on PostgreSQL with two worker processes", () => {
  it("plans three orders, the two workers carry them out, and they are merged in dependency order", async ({
    onTestFailed,
  }) => {
    // Where it stopped, when it does: the ledger so far and what each process printed.
    onTestFailed(async () => {
      const store = await openStore({ kind: "postgres", url });
      const events = await store.read({ limit: 1000 });
      await store.close();
      console.error(events.map((e) => `${e.ts} ${e.type} ${e.order_id ?? ""} ${JSON.stringify(e.payload)}`));
      for (const p of processes)
        console.error(`${p.pid} ${p.child.spawnargs.slice(3).join(" ")}:\n${p.output()}`);
    });
    // The first turns of a and b are each held until the other's has arrived: the two orders are worked at the
    // same time, which, each worker working one order at once, takes both workers.
    let release = () => {};
    const together = new Promise<void>((resolve) => {
      release = resolve;
    });
    const firstTurns = new Set<string>();
    model.respondWith((body) => {
      const asker = askerOf(body);
      if (asker?.kind === "planner")
        return reply.text(notesPlan([{ key: "a" }, { key: "b" }, { key: "c", depends_on: ["a", "b"] }]));
      if (asker?.kind !== "order") return reply.status(400, "not a request this test expects");
      if (asker.file !== "notes/c.md" && !asker.toolAnswered && !firstTurns.has(asker.file)) {
        firstTurns.add(asker.file);
        if (firstTurns.size === 2) release();
        return reply.held(together, orderTurn(asker));
      }
      return orderTurn(asker);
    });
    const workers = [ironclaw("worker", "--postgres", url), ironclaw("worker", "--postgres", url)];
    await Promise.all(workers.map((w) => w.waitFor(/worker running \(1 at once, postgres\)/, 60_000)));
    const run = ironclaw(
      "run",
      "--theater",
      "demo",
      "Write three notes, c after a and b",
      "--wait",
      "--json",
    );

    const code = await run.exited;
    const done = JSON.parse(run.output().trim().split("\n").at(-1) ?? "{}") as {
      run_id: string;
      status: string;
    };
    expect({ code, status: done.status }).toEqual({ code: 0, status: "COMPLETE" });

    const store: EventStore = await openStore({ kind: "postgres", url });
    try {
      const story = await store.read({ runId: done.run_id });
      const types = story.map((e) => e.type);
      expect(types[0]).toBe("RUN_CREATED");
      expect(types.at(-1)).toBe("RUN_COMPLETED");
      expect(types.filter((t) => t === "ORDER_COMPLETED")).toHaveLength(3);
      // Both worker processes worked: a and b at the same time, one each; c by either. None by the waiting run.
      const workerPids = story
        .filter((e) => e.type === "ORDER_STARTED")
        .map((e) => pidOf((e.payload as { worker_id: string }).worker_id));
      expect(workerPids).toHaveLength(3);
      expect(new Set(workerPids.slice(0, 2))).toEqual(new Set(workers.map((w) => w.pid)));
      expect(workers.map((w) => w.pid)).toContain(workerPids[2]);

      // c depends on a and b, so it is merged last; each order's projection names the merge its event does.
      const integrated = story.filter((e) => e.type === "INTEGRATED");
      const keyOf = new Map(
        story
          .filter((e) => e.type === "ORDER_CREATED")
          .map((e) => [e.order_id, (e.payload as { key: string }).key]),
      );
      expect(integrated.map((e) => keyOf.get(e.order_id))).toHaveLength(3);
      expect(keyOf.get(integrated[2]?.order_id ?? null)).toBe("c");
      for (const event of integrated) {
        const order = await store.getOrder(event.order_id ?? "");
        expect(order).toMatchObject({ status: "COMPLETED", integration_state: "INTEGRATED" });
        expect(order?.commit_sha).toBe((event.payload as { commit_sha: string }).commit_sha);
      }
      // The projections agree with the ledger: rebuilt from the events alone, they are byte for byte the same.
      const kept = await store.dumpSnapshots();
      await store.rebuild();
      expect(await store.dumpSnapshots()).toEqual(kept);

      const repo = join(home, "theaters", "demo", "repo");
      const git = (...args: string[]) =>
        spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
      expect(git("log", "--merges", "--format=%H", "main").split("\n")).toHaveLength(3);
      const last = integrated.at(-1)?.payload as { commit_sha: string } | undefined;
      expect(git("rev-parse", "main")).toBe(last?.commit_sha);
      expect(git("ls-tree", "--name-only", "main", "notes/").split("\n").sort()).toEqual([
        "notes/a.md",
        "notes/b.md",
        "notes/c.md",
      ]);
    } finally {
      await store.close();
    }
  }, 240_000);
});
