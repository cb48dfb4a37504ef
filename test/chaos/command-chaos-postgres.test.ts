import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventStore, openStore } from "../../src/ledger/index.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { chaosSeed } from "./chaos-processes.js";
import { runChaos, setUpChaosHome } from "./chaos-run.js";
import { brokenRules, chaosFigures } from "./chaos-verdict.js";

// The chaos run of command-chaos.test.ts with the ledger and the queue on PostgreSQL (IRONCLAW_LEDGER_URL in
// every process), in a database of its own. Runs under `npm run test:postgres`, whose throwaway cluster exports
// the URL; skipped elsewhere. IRONCLAW_CHAOS_SEED=<seed> replays a schedule.

const clusterUrl = process.env.IRONCLAW_TEST_POSTGRES_URL ?? "";
const database = `chaos_${process.pid}_${Date.now().toString(36)}`;
const seed = chaosSeed();
let url: string;
let root: string;
let env: NodeJS.ProcessEnv & { IRONCLAW_HOME: string };
let model: ModelServer;
let store: EventStore;
let runIds: string[];

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
  console.log(`chaos seed ${seed} (IRONCLAW_CHAOS_SEED=${seed} replays it)`);
  await admin(`CREATE DATABASE ${database}`);
  const parsed = new URL(clusterUrl);
  parsed.pathname = `/${database}`;
  url = parsed.toString();
  model = await startModelServer();
  root = mkdtempSync(join(tmpdir(), "ironclaw-chaos-pg-"));
  env = { IRONCLAW_HOME: join(root, "home"), IRONCLAW_LEDGER_URL: url };
  runIds = await setUpChaosHome(env, model);
  store = await openStore({ kind: "postgres", url });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  if (url) await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

describe.skipIf(!clusterUrl)("command under kill -9 (PostgreSQL)", () => {
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
