// What command runs on in the benchmark, assembled as the warden assembles it: the cell backend `auto` picks on
// this host (built from the guest sources as they are now), the host's providers pointing at a scripted
// OpenAI-compatible server that answers at once, the users' spend caps on a host.db, and a theater repository
// of a realistic size.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Database from "better-sqlite3";
import {
  bundleGuest,
  bundleRuntime,
  type CellBackend,
  createBwrapBackend,
  createConfiguredBackend,
  createProcessBackend,
  PACKAGE_ROOT,
} from "../../src/cells/index.js";
import { hostGit } from "../../src/command/index.js";
import { type IronclawdConfig, ironclawdConfigSchema } from "../../src/contracts/index.js";
import { createLogger, type Logger } from "../../src/core/index.js";
import { ModelBudget } from "../../src/warden/budget/index.js";
import { HostProviders, openHostDb } from "../../src/warden/index.js";
import { type ModelServer, startModelServer } from "../../test/support/model-server.js";
import { answerOrderAgent } from "./order-script.js";

/** The guest bundle this run's cells start from, inside the package so its externals resolve. */
const BUNDLE_DIR = `node_modules/.cache/ironclaw-bench-command-${process.pid}`;
/** The host uid command cells run as (one user's cells, as the warden gives a user). */
export const CELL_UID = 60_431;

export interface BenchHost {
  backend: CellBackend;
  /** Which backend `auto` chose here, and why. */
  choice: string;
  model: ModelServer;
  config: IronclawdConfig;
  providers: HostProviders;
  hostDb: Database.Database;
  budget: ModelBudget;
  logger: Logger;
  close(): Promise<void>;
}

export async function openBenchHost(home: string): Promise<BenchHost> {
  const model = await startModelServer();
  model.respondWith(answerOrderAgent);
  const config = ironclawdConfigSchema.parse({ new_brains: { provider: "local", model: "test-model" } });
  // The warden's own choice; the backend is then built on a guest bundled from the current sources.
  const { choice } = await createConfiguredBackend(config, { home, onWarning: () => {} });
  await bundleGuest({ outDir: BUNDLE_DIR });
  const runtime = bundleRuntime(PACKAGE_ROOT, BUNDLE_DIR);
  let backend: CellBackend;
  if (choice.backend === "bwrap") backend = createBwrapBackend({ runtime, embeddingsHome: home });
  else if (choice.backend === "process") backend = createProcessBackend({ runtime, onWarning: () => {} });
  else throw new Error(`this benchmark runs on bwrap or process cells; auto picked ${choice.backend}`);
  const hostDb = openHostDb(join(home, "host"));
  const budget = new ModelBudget({ db: hostDb, config, owner: `bench-command/${process.pid}` });
  const providers = new HostProviders({ providers: { local: { base_url: model.url, models: [] } } }, {});
  return {
    backend,
    choice: `${choice.backend}: ${choice.reason}`,
    model,
    config,
    providers,
    hostDb,
    budget,
    logger: createLogger("bench", { level: "silent" }),
    async close() {
      hostDb.close();
      await model.close();
      await rm(join(PACKAGE_ROOT, BUNDLE_DIR), { recursive: true, force: true });
    },
  };
}

/** A repository on main with `files` source-like files (~2 KB each) in a few folders, committed once. */
export async function seedRepository(dir: string, files: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  await hostGit(dir, ["init", "-q", "-b", "main"]);
  const line = "export const value = 'a line of a source file, long enough to be typical';\n";
  for (let i = 0; i < files; i++) {
    const folder = join(dir, "src", `part${i % 10}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `file${i}.ts`), `// file ${i}\n${line.repeat(26)}`);
  }
  await hostGit(dir, ["add", "-A"]);
  await hostGit(dir, ["commit", "-q", "-m", "seed"]);
}
