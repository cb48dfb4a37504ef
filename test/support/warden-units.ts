import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import {
  type IronclawdConfig,
  type IronclawdConfigInput,
  ironclawdConfigSchema,
} from "../../src/contracts/index.js";
import { createLogger, type Logger } from "../../src/core/index.js";
import { AuditStore } from "../../src/warden/audit-store.js";
import { ModelBudget } from "../../src/warden/budget/index.js";
import type { ModelCallRecord } from "../../src/warden/cell-requests.js";
import { ChatCore } from "../../src/warden/chat-core.js";
import type { ChatEvent, ChatTurnInput } from "../../src/warden/chat-events.js";
import { ConversationStore } from "../../src/warden/conversations/index.js";
import { openHostDb } from "../../src/warden/host-db.js";
import { HostProviders } from "../../src/warden/host-providers.js";
import { SoulStore, SoulWatch } from "../../src/warden/soul/index.js";
import { UserStore } from "../../src/warden/user-store.js";
import { WardenCells } from "../../src/warden/warden-cells.js";
import { createFakeCellBackend, type FakeCell, type FakeCellOptions } from "./fake-cell.js";
import { type ModelServer, startModelServer } from "./model-server.js";
import { scriptedCells } from "./scripted-cell.js";

/** The key only the warden's environment holds. */
export const UNIT_HOST_KEY = "sk-host-only-unit-51c2";

export interface WardenUnits {
  home: string;
  config: IronclawdConfig;
  db: Database.Database;
  audit: AuditStore;
  users: UserStore;
  conversations: ConversationStore;
  soulStore: SoulStore;
  soul: SoulWatch;
  budget: ModelBudget;
  providers: HostProviders;
  cells: WardenCells;
  chat: ChatCore;
  /** The scripted OpenAI-compatible server the host's one provider, `local`, points at. */
  model: ModelServer;
  /** The fake cells the backend started, in order. */
  started: FakeCell[];
  modelCalls: ModelCallRecord[];
  /** Runs a whole turn and returns its events. */
  turn(input: Omit<ChatTurnInput, "channel"> & { channel?: string }): Promise<ChatEvent[]>;
  close(): Promise<void>;
}

export interface WardenUnitOptions {
  /** What serves each cell (see fake-cell.ts); the agent handler when absent. */
  handler?: FakeCellOptions["handler"];
  /** ironclawd.toml as input; `providers` are added to `local`, the scripted model server. */
  config?: IronclawdConfigInput;
  /** Users the host knows (their conversations need them); default ada and bob. */
  users?: string[];
  readyTimeoutMs?: number;
  turnTimeoutMs?: number;
  logger?: Logger;
}

/**
 * The warden's units wired as the daemon wires them (daemon.ts) on a real host.db, without the HTTP server and
 * with fake cells (fake-cell.ts): ChatCore over WardenCells, the cells' requests served by the real proxies to
 * the scripted model server over real HTTP, the soul guard judging turns and model calls, the budget charging.
 */
export async function startWardenUnits(options: WardenUnitOptions = {}): Promise<WardenUnits> {
  const model = await startModelServer();
  const home = await mkdtemp(join(tmpdir(), "ironclaw-units-"));
  const config = ironclawdConfigSchema.parse({
    ...options.config,
    providers: {
      local: { base_url: model.url, api_key_env: "TEST_MODEL_KEY" },
      ...options.config?.providers,
    },
    new_brains: {
      provider: "local",
      model: "test-model",
      embedding_provider: "local",
      embedding_model: "test-embed",
      ...options.config?.new_brains,
    },
  });
  const logger = options.logger ?? createLogger("warden-units", { level: "silent" });
  const db = openHostDb(home);
  const audit = new AuditStore(db);
  const users = new UserStore(db);
  // The users' rows, which their conversations belong to; without API tokens (deriving one costs ~100 ms).
  const addUser = db.prepare(
    "INSERT INTO warden_users (id, is_admin, created_at, cell_uid) VALUES (?, 0, ?, ?)",
  );
  for (const [i, name] of (options.users ?? ["ada", "bob"]).entries())
    addUser.run(name, new Date().toISOString(), 60_000 + i);
  const conversations = new ConversationStore(db);
  const soulStore = new SoulStore(db, { audit: (entry) => audit.record(entry) });
  const budget = new ModelBudget({ db, config, owner: `units/${process.pid}/1` });
  const providers = new HostProviders(
    config,
    { TEST_MODEL_KEY: UNIT_HOST_KEY },
    { retry: { maxRetries: 0 } },
  );
  const backend = createFakeCellBackend(options.handler ? { handler: options.handler } : {});
  const modelCalls: ModelCallRecord[] = [];
  const cells = new WardenCells({
    backend,
    usersDir: join(home, "users"),
    config,
    providers,
    cellUidOf: () => undefined,
    audit: (entry) => audit.record(entry),
    logger,
    budget,
    onModelCall: (record) => modelCalls.push(record),
    ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
  });
  const soul = new SoulWatch(soulStore, config.soul_guard, cells, logger);
  cells.guardModelCalls((userId, cell, request) => soul.checkModelCall(userId, cell, request));
  const chat = new ChatCore({
    cells,
    conversations,
    soul,
    logger,
    audit: (entry) => audit.record(entry),
    ...(options.turnTimeoutMs === undefined ? {} : { turnTimeoutMs: options.turnTimeoutMs }),
  });
  return {
    home,
    config,
    db,
    audit,
    users,
    conversations,
    soulStore,
    soul,
    budget,
    providers,
    cells,
    chat,
    model,
    started: backend.started,
    modelCalls,
    async turn(input) {
      const events: ChatEvent[] = [];
      for await (const event of chat.turn({ channel: "api", ...input })) events.push(event);
      return events;
    },
    async close() {
      await cells.stopAll();
      db.close();
      await model.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The one `done` of a turn's events. */
export function doneOf(events: readonly ChatEvent[]): Extract<ChatEvent, { type: "done" }> {
  const done = events.filter((e) => e.type === "done");
  if (done.length !== 1) throw new Error(`expected one done event, got ${done.length}`);
  return done[0] as Extract<ChatEvent, { type: "done" }>;
}

/** The warden's parts over scripted cells: each cell a user starts is served by `parts` (see scripted-cell.ts). */
export async function startScriptedUnits(
  parts: Parameters<typeof scriptedCells>[0] = () => ({}),
  options: Omit<WardenUnitOptions, "handler"> = {},
) {
  const scripted = scriptedCells(parts);
  const units = await startWardenUnits({ handler: scripted.handler, ...options });
  return { units, scripted };
}
