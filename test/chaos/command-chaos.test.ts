import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventStore, openStore } from "../../src/ledger/index.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { chaosSeed } from "./chaos-processes.js";
import { runChaos, setUpChaosHome } from "./chaos-run.js";
import { brokenRules, chaosFigures } from "./chaos-verdict.js";

// Chaos on the embedded stack: ledger.db and queue.db under one IRONCLAW_HOME, shared by a daemon (the run
// driver and a duty officer), a second duty officer and three workers, each its own process, each killed with
// SIGKILL at seeded random moments and started again while 50 orders run. IRONCLAW_CHAOS_SEED=<seed> replays
// a schedule. Its own script (npm run test:chaos): it takes minutes, not seconds.

const seed = chaosSeed();
let root: string;
let env: NodeJS.ProcessEnv & { IRONCLAW_HOME: string };
let model: ModelServer;
let store: EventStore;
let runIds: string[];

beforeAll(async () => {
  console.log(`chaos seed ${seed} (IRONCLAW_CHAOS_SEED=${seed} replays it)`);
  model = await startModelServer();
  root = mkdtempSync(join(tmpdir(), "ironclaw-chaos-"));
  env = { IRONCLAW_HOME: join(root, "home") };
  runIds = await setUpChaosHome(env, model);
  store = await openStore({ kind: "sqlite", path: join(env.IRONCLAW_HOME, "ledger.db") });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("command under kill -9 (embedded)", () => {
  it("ends every order integrated or failed with a reason, merged once, none restarted after completion", async ({
    onTestFailed,
  }) => {
    const report = await runChaos({ seed, env, store, runIds, deadlineMs: 420_000 });
    onTestFailed(() => {
      console.error(`seed ${seed}; kills ${JSON.stringify(report.kills)}`);
      for (const p of report.processes)
        console.error(`--- ${p.role} ${p.child.pid}:\n${p.output().slice(-6000)}`);
    });
    const figures = await chaosFigures(store, runIds);
    console.log(
      `chaos seed ${seed}: kills ${JSON.stringify(report.kills)} in ${report.seconds} s; ${JSON.stringify(figures)}`,
    );
    const repo = join(env.IRONCLAW_HOME, "theaters", "demo", "repo");
    expect(await brokenRules(store, repo, runIds)).toEqual([]);
  }, 480_000);
});
