import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EventStore } from "../../src/ledger/index.js";
import { runIronclawInProcess } from "../cli/run-cli.js";
import { type ModelServer, reply } from "../support/model-server.js";
import { type ChaosProcess, killHard, type Role, seededRandom, spawnNode } from "./chaos-processes.js";

/** 50 orders as two runs of 25 (a plan holds at most 32): three layers, each order after one or two of the last. */
export const RUNS = ["a", "b"] as const;
const ORDERS_PER_RUN = 25;
const WORKERS = 3;
/** The kills of a chaos run, in an order the seed shuffles: bounded, so the run still ends within the test's time. */
const KILLS: readonly Role[] = [
  "daemon",
  "daemon",
  "duty",
  "duty",
  "worker",
  "worker",
  "worker",
  "worker",
  "worker",
];

/**
 * The plan of run `part`: orders <part>0..24; 0–9 first, 10–19 each after one of those, 20–24 each after two of
 * the second layer. Each is gated on its note and its dependencies' notes; a short budget and three retries let
 * the duty officer reissue what a kill stalled.
 */
export function chaosPlan(part: string): string {
  const key = (i: number) => `${part}${i}`;
  const dependsOn = (i: number) =>
    i < 10 ? [] : i < 20 ? [key(i - 10)] : [key(10 + (((i - 20) * 2) % 10)), key(11 + (((i - 20) * 2) % 10))];
  return JSON.stringify({
    orders: Array.from({ length: ORDERS_PER_RUN }, (_, i) => ({
      key: key(i),
      type: "implement",
      objective: `Write notes/${key(i)}.md`,
      depends_on: dependsOn(i),
      acceptance_commands: [[key(i), ...dependsOn(i)].map((k) => `test -s notes/${k}.md`).join(" && ")],
      constraints: { budget_seconds: 15, max_retries: 3 },
    })),
  });
}

/** IRONCLAW_HOME for the chaos processes: the scripted model plans, leases of 3 s, a duty officer every 2 s. */
export async function setUpChaosHome(env: NodeJS.ProcessEnv & { IRONCLAW_HOME: string }, model: ModelServer) {
  model.respondWith((body) => {
    const part = /chaos part ([ab])/.exec(JSON.stringify(body.messages))?.[1];
    return part ? reply.text(chaosPlan(part)) : reply.status(400, "the chaos run's model only plans");
  });
  const cli = async (...args: string[]) => {
    const result = await runIronclawInProcess(args, { env });
    if (result.code !== 0) throw new Error(`ironclaw ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  await cli("theater", "list");
  writeFileSync(
    join(env.IRONCLAW_HOME, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${model.url}"\n\n[new_brains]\nprovider = "local"\nmodel = "test-model"\n\n` +
      "[command]\nworkers = 0\nlease_seconds = 3\npatrol_seconds = 2\nstall_seconds = 1\n",
  );
  await cli("user", "add", "alice");
  await cli("theater", "add", "demo", "--user", "alice");
  const runIds: string[] = [];
  for (const part of RUNS) {
    const out = await cli("run", "--theater", "demo", `chaos part ${part}`, "--json");
    runIds.push((JSON.parse(out) as { run_id: string }).run_id);
  }
  return runIds;
}

export interface ChaosReport {
  kills: Record<Role, number>;
  seconds: number;
  processes: ChaosProcess[];
}

/**
 * Starts the daemon, a duty officer and three workers, then kills one of them with SIGKILL at seeded random
 * moments and starts it again, KILLS times, and waits for every run to conclude (or `deadlineMs` to pass).
 * Every process is killed at the end, so the ledger is quiet when it is checked.
 */
export async function runChaos(options: {
  seed: number;
  env: NodeJS.ProcessEnv;
  store: EventStore;
  runIds: string[];
  deadlineMs: number;
}): Promise<ChaosReport> {
  const random = seededRandom(options.seed);
  const started = Date.now();
  const all: ChaosProcess[] = [];
  const start = (role: Role) => {
    const p = spawnNode(role, options.env);
    all.push(p);
    return p;
  };
  const live: ChaosProcess[] = [
    start("daemon"),
    start("duty"),
    ...Array.from({ length: WORKERS }, () => start("worker")),
  ];
  const kills: Record<Role, number> = { daemon: 0, worker: 0, duty: 0 };
  const concluded = async () => {
    for (const id of options.runIds) if ((await options.store.getRun(id))?.status === "OPEN") return false;
    return true;
  };
  try {
    for (const role of shuffled(KILLS, random)) {
      // A victim is a process that has opened: killing starts over and over would only stall the run.
      // A worker is killed while it holds an order, at a random point of it; the others whenever they are up.
      let busy = role === "worker" ? await holders(options.store, options.runIds) : undefined;
      const up = () =>
        live.filter(
          (p) =>
            p.role === role &&
            p.output().includes(`${role} running`) &&
            (busy === undefined || busy.has(p.child.pid ?? -1)),
        );
      const late = () => Date.now() - started > options.deadlineMs;
      for (;;) {
        if (up().length > 0 || late() || (await concluded())) break;
        await sleep(200);
        if (busy) busy = await holders(options.store, options.runIds);
      }
      await sleep(role === "worker" ? random() * 1_500 : 500 + random() * 3_500);
      if (await concluded()) break;
      const candidates = up();
      const victim = candidates[Math.floor(random() * candidates.length)];
      if (!victim) continue;
      await killHard(victim);
      kills[role] += 1;
      await sleep(random() * 1_000);
      live.splice(live.indexOf(victim), 1, start(role));
    }
    while (!(await concluded()) && Date.now() - started < options.deadlineMs) await sleep(500);
  } finally {
    await Promise.all(live.map(killHard));
  }
  return { kills, seconds: Math.round((Date.now() - started) / 1000), processes: all };
}

/** The pids of the workers holding an order now (its last ORDER_STARTED names `<host>-<pid>-<ulid>`). */
async function holders(store: EventStore, runIds: string[]): Promise<Set<number>> {
  const pids = new Set<number>();
  for (const runId of runIds)
    for (const { order_id, status } of (await store.getRun(runId))?.orders ?? []) {
      if (status !== "RUNNING") continue;
      const started = (await store.read({ orderId: order_id, types: ["ORDER_STARTED"], limit: 1_000 })).at(
        -1,
      );
      pids.add(Number(String(started?.payload.worker_id).split("-").at(-2)));
    }
  return pids;
}

/** Fisher–Yates with the seeded PRNG. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
