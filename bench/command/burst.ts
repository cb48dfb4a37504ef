// Part 2: a burst of orders through one process's workers on the embedded SQLite queue and ledger, assembled as
// the warden assembles command (CommandService, the warden's command cells, cold as they are today), carried by
// the run driver from plan to merge. Then the proof, from the ledger and from the theater's git independently:
// every order INTEGRATED, and main holding exactly one merge commit per order — the one its INTEGRATED names.
import { join } from "node:path";
import { CommandService, hostGit } from "../../src/command/index.js";
import { WardenCommandCells } from "../../src/warden/index.js";
import { percentile } from "../percentile.js";
import { THEATER, USER } from "./command-parts.js";
import { type BenchHost, CELL_UID, seedRepository } from "./host.js";
import { notesPlan } from "./order-script.js";

export interface BurstFigures {
  orders: number;
  repoFiles: number;
  runs: number;
  workers: number;
  seconds: number;
  ordersPerS: number;
  /** ORDER_ENQUEUED to INTEGRATED per order, ms. */
  latency: { p50: number; p95: number };
  /** Orders not INTEGRATED when the burst ended. */
  lost: string[];
  /** Orders with more than one INTEGRATED event or more than one merge commit on main. */
  mergedTwice: string[];
  /** Orders whose INTEGRATED names a commit that is not main's merge of that order. */
  mismatched: string[];
  mergesOnMain: number;
  runStatuses: Record<string, number>;
}

/** Plans are at most 32 orders (MAX_PLAN_ORDERS), so a burst is several runs at once in one theater. */
export async function measureBurst(
  host: BenchHost,
  home: string,
  options: { orders: number; workers: number; repoFiles: number; timeoutMs: number },
): Promise<BurstFigures> {
  const runCount = Math.ceil(options.orders / 25);
  const plans = new Map<string, unknown>();
  const cells = new WardenCommandCells({
    backend: host.backend,
    scratchDir: join(home, "command", "cells"),
    config: host.config,
    providers: host.providers,
    cellUidOf: () => CELL_UID,
    audit: () => {},
    logger: host.logger,
    budget: host.budget,
  });
  const service = await CommandService.open({
    home,
    planner: { plan: async ({ runId }) => plans.get(runId) },
    cells,
    workers: options.workers,
    modelProvider: "local",
    logger: host.logger,
  });
  try {
    await seedRepository(join(service.theaters.theaterDir(THEATER), "repo"), options.repoFiles);
    const { repo_path: repo } = await service.theaters.add({ theaterId: THEATER, owner: USER });
    const started = performance.now();
    const runIds: string[] = [];
    for (let r = 0; r < runCount; r++) {
      const count = Math.min(25, options.orders - r * 25);
      const runId = await service.co.createRun({ userId: USER, theaterId: THEATER, objective: `Burst ${r}` });
      plans.set(runId, notesPlan(`b${r}`, count));
      runIds.push(runId);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.timeoutMs);
    });
    const done = Promise.allSettled(runIds.map((runId) => service.runs.follow(runId)));
    await Promise.race([done, deadline]);
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    return {
      ...(await verify(service, repo, runIds)),
      runs: runCount,
      repoFiles: options.repoFiles,
      workers: options.workers,
      seconds,
      ordersPerS: options.orders / seconds,
    };
  } finally {
    await service.close();
    await cells.releaseAll();
  }
}

type Verified = Omit<BurstFigures, "runs" | "workers" | "seconds" | "ordersPerS" | "repoFiles">;

async function verify(service: CommandService, repo: string, runIds: string[]): Promise<Verified> {
  const { store } = service;
  const lost: string[] = [];
  const mergedTwice = new Set<string>();
  const mismatched: string[] = [];
  const latencies: number[] = [];
  const runStatuses: Record<string, number> = {};
  const integratedSha = new Map<string, string>();
  let orders = 0;
  for (const runId of runIds) {
    const run = await store.getRun(runId);
    runStatuses[run?.status ?? "missing"] = (runStatuses[run?.status ?? "missing"] ?? 0) + 1;
    for (const { order_id } of run?.orders ?? []) {
      orders += 1;
      const events = await store.read({ orderId: order_id });
      const integrated = events.filter((e) => e.type === "INTEGRATED");
      const enqueued = events.find((e) => e.type === "ORDER_ENQUEUED");
      if (integrated.length === 0) lost.push(order_id);
      if (integrated.length > 1) mergedTwice.add(order_id);
      const first = integrated[0];
      if (first) integratedSha.set(order_id, String(first.payload.commit_sha));
      if (first && enqueued) latencies.push(Date.parse(first.ts) - Date.parse(enqueued.ts));
    }
  }
  // The theater's own record: main's first-parent merges, each naming the order it brought in.
  const log = await hostGit(repo, ["log", "--first-parent", "--merges", "--format=%H %s", "main"]);
  const mergesOf = new Map<string, string[]>();
  let mergesOnMain = 0;
  for (const line of log.stdout.split("\n").filter(Boolean)) {
    mergesOnMain += 1;
    const [sha = "", ...subject] = line.split(" ");
    const orderId = /^Integrate order (\S+) /.exec(subject.join(" "))?.[1] ?? "(unnamed)";
    mergesOf.set(orderId, [...(mergesOf.get(orderId) ?? []), sha]);
  }
  for (const [orderId, shas] of mergesOf) if (shas.length > 1) mergedTwice.add(orderId);
  for (const [orderId, sha] of integratedSha)
    if (mergesOf.get(orderId)?.[0] !== sha) mismatched.push(orderId);
  return {
    orders,
    latency: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    lost,
    mergedTwice: [...mergedTwice],
    mismatched,
    mergesOnMain,
    runStatuses,
  };
}
