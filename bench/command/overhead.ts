// Part 1: what command adds to one order when the model answers at once and the cells are warm — worktree,
// prepare, the agent's turn in its cell, the tree in and out, the ledger's events, the gate in a cell, the merge —
// against the git it wraps (bare-git.ts), interleaved order by order on repositories of the same size.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_ORDER_DEFAULTS } from "../../src/command/index.js";
import { percentile } from "../percentile.js";
import { bareGitOrder } from "./bare-git.js";
import { type CommandParts, THEATER, USER } from "./command-parts.js";
import { seedRepository } from "./host.js";
import type { Step } from "./warm-cells.js";

export interface OrderTiming {
  totalMs: number;
  workerMs: number;
  integrateMs: number;
  worker: Partial<Record<Step, number>>;
  integrate: Partial<Record<Step, number>>;
}

export interface OverheadFigures {
  orders: number;
  repoFiles: number;
  command: { p50: number; p95: number };
  bareGit: { p50: number; p95: number };
  /** command − bare git, p50 and p95 of each side. */
  overhead: { p50: number; p95: number };
  /** The same order with cells started on its path, as command runs today (no warm pool for command cells). */
  coldCells: { orders: number; p50: number };
  /** One command cell, cold start to greeted, two started at once (what a warm cell saves, twice per order). */
  cellStartMs: { p50: number; p95: number };
  /** Warm orders that found a cell not started for them (0 when every hand-out was warm). */
  warmMisses: number;
  /** Median ms per step. */
  steps: Record<string, number>;
  samples: { command: number[]; bareGit: number[] };
}

const p = (xs: number[]) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95) });

/** One order from claim to INTEGRATED; `warm` starts its two cells beforehand, untimed. */
async function timeOrder(parts: CommandParts, runId: string, orderId: string, warm: boolean) {
  if (warm) {
    const spec = { userId: USER, runId, orderId };
    await Promise.all([
      parts.cells.prewarm({ ...spec, purpose: "order", model: DEFAULT_ORDER_DEFAULTS.profile.model }),
      parts.cells.prewarm({ ...spec, purpose: "gate" }),
    ]);
  }
  parts.clock.take();
  const started = performance.now();
  const outcome = await parts.worker.runOnce();
  const workerMs = performance.now() - started;
  const worker = parts.clock.take();
  if (outcome.kind !== "ran" || outcome.status !== "review_requested" || outcome.orderId !== orderId)
    throw new Error(`order ${orderId} did not run as expected: ${JSON.stringify(outcome)}`);
  const order = await parts.store.getOrder(orderId);
  const result = await parts.integrator.integrate({
    theaterId: THEATER,
    orderId,
    worktreePath: order?.worktree_path ?? "",
  });
  const totalMs = performance.now() - started;
  const integrate = parts.clock.take();
  if (result.result !== "passed")
    throw new Error(`order ${orderId} was not integrated: ${JSON.stringify(result.gates)}`);
  return { totalMs, workerMs, integrateMs: totalMs - workerMs, worker, integrate };
}

export async function measureOverhead(
  parts: CommandParts,
  home: string,
  options: { orders: number; cold: number; repoFiles: number },
): Promise<OverheadFigures> {
  const bareRepo = join(home, "bare", "repo");
  const bareWorktrees = join(home, "bare", "worktrees");
  await seedRepository(bareRepo, options.repoFiles);
  await mkdir(bareWorktrees, { recursive: true });
  const warmup = 2;
  const { runId, orderIds } = await parts.runOf(options.orders + warmup);
  const command: number[] = [];
  const bare: number[] = [];
  const timings: OrderTiming[] = [];
  for (const [i, orderId] of orderIds.entries()) {
    // Which side goes first alternates, so that a slow spell of the disk weighs on both alike.
    const runBare = async () => bare.push(await bareGitOrder(bareRepo, bareWorktrees, `bare${i}`));
    const runCommand = async () => {
      const timing = await timeOrder(parts, runId, orderId, true);
      command.push(timing.totalMs);
      timings.push(timing);
    };
    if (i % 2 === 0) await runBare().then(runCommand);
    else await runCommand().then(runBare);
    if (i < warmup) {
      command.pop();
      bare.pop();
      timings.pop();
    }
  }
  const warmMisses = parts.cells.misses;
  const cold: number[] = [];
  if (options.cold > 0) {
    const coldRun = await parts.runOf(options.cold);
    for (const orderId of coldRun.orderIds)
      cold.push((await timeOrder(parts, coldRun.runId, orderId, false)).totalMs);
  }
  const c = p(command);
  const b = p(bare);
  return {
    orders: command.length,
    repoFiles: options.repoFiles,
    command: c,
    bareGit: b,
    overhead: { p50: c.p50 - b.p50, p95: c.p95 - b.p95 },
    coldCells: { orders: cold.length, p50: percentile(cold, 50) },
    cellStartMs: p(parts.cells.startMs),
    warmMisses,
    steps: medianSteps(timings),
    samples: { command, bareGit: bare },
  };
}

/** Median per step, the worker's and integration's apart, with what the named steps leave as "ledger, git, checks". */
function medianSteps(timings: OrderTiming[]): Record<string, number> {
  const median = (pick: (t: OrderTiming) => number) => percentile(timings.map(pick), 50);
  const sum = (steps: Partial<Record<Step, number>>) =>
    Object.values(steps).reduce((a, b) => a + (b ?? 0), 0);
  const steps: Record<string, number> = {};
  const workerSteps: Step[] = [
    "worktreeOpen",
    "commit",
    "cellHandOut",
    "treeIn",
    "agentTurn",
    "treeOut",
    "cellRelease",
  ];
  for (const step of workerSteps) steps[`worker: ${step}`] = median((t) => t.worker[step] ?? 0);
  steps["worker: ledger + checks (rest)"] = median((t) => t.workerMs - sum(t.worker));
  const gateSteps: Step[] = ["cellHandOut", "treeIn", "gateRun", "cellRelease"];
  for (const step of gateSteps) steps[`integrate: ${step}`] = median((t) => t.integrate[step] ?? 0);
  steps["integrate: checks + merge + ledger (rest)"] = median((t) => t.integrateMs - sum(t.integrate));
  steps["worker total"] = median((t) => t.workerMs);
  steps["integrate total"] = median((t) => t.integrateMs);
  return steps;
}
