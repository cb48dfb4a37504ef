import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CellBackend,
  createBwrapBackend,
  createProcessBackend,
  defaultRuntime,
} from "../../src/cells/index.js";
import type { IronclawdConfig } from "../../src/contracts/index.js";
import { createLogger, type Logger } from "../../src/core/index.js";
import type { EgressDial } from "../../src/egress/index.js";
import { startWarden, type Warden } from "../../src/warden/index.js";
import { type ModelServer, startModelServer } from "./model-server.js";

/** The key only the warden's environment holds; a cell must never see it. */
export const HOST_KEY = "sk-host-only-7f3a9c";

export interface WardenHarness {
  warden: Warden;
  url: string;
  home: string;
  model: ModelServer;
  /** Adds a user and returns their API token. */
  addUser(name: string): Promise<string>;
  close(): Promise<void>;
}

export function testBackend(name = process.env.IRONCLAW_WARDEN_BACKEND ?? "bwrap"): CellBackend {
  if (name === "process") return createProcessBackend({ runtime: defaultRuntime(), onWarning: () => {} });
  return createBwrapBackend({ runtime: defaultRuntime() });
}

/**
 * A real warden on 127.0.0.1 with real cells (bwrap by default, no network), whose only model provider is
 * the scripted model server, keyed by HOST_KEY from the warden's own environment. New brains use the
 * provider's embeddings (through the proxy), so cells start without building the built-in word table.
 */
export interface WardenHarnessOptions {
  backend?: CellBackend;
  home?: string;
  configure?: (config: IronclawdConfig) => IronclawdConfig;
  /** Tests of hostile guests: a development handler instead of the agent. */
  handler?: "shell" | "echo";
  /** Where the warden logs; silent unless IRONCLAW_TEST_LOG names a level. */
  logger?: Logger;
  /** Real host names of the integrations' services mapped to local servers, and their CA. */
  egressDial?: EgressDial;
}

export async function startWardenHarness(options: WardenHarnessOptions = {}): Promise<WardenHarness> {
  const model = await startModelServer();
  const home = options.home ?? (await mkdtemp(join(tmpdir(), "ironclaw-warden-")));
  const warden = await startWarden({
    home,
    host: "127.0.0.1",
    port: 0,
    env: { TEST_MODEL_KEY: HOST_KEY },
    logger:
      options.logger ?? createLogger("warden-test", { level: process.env.IRONCLAW_TEST_LOG ?? "silent" }),
    backend: options.backend ?? testBackend(),
    cellSpec: { startTimeoutMs: 90_000, ...(options.handler ? { handler: options.handler } : {}) },
    providerTuning: { retry: { maxRetries: 0 } },
    ...(options.egressDial ? { egressDial: options.egressDial } : {}),
    configure: (config) => {
      const tuned: IronclawdConfig = {
        ...config,
        providers: { local: { base_url: model.url, api_key_env: "TEST_MODEL_KEY", models: [] } },
        new_brains: {
          provider: "local",
          model: "test-model",
          embedding_provider: "local",
          embedding_model: "test-embed",
        },
      };
      return options.configure ? options.configure(tuned) : tuned;
    },
  });
  return {
    warden,
    url: warden.url,
    home,
    model,
    async addUser(name) {
      return (await warden.context.users.add(name)).token;
    },
    async close() {
      await warden.close();
      await model.close();
      if (!options.home) await rm(home, { recursive: true, force: true });
    },
  };
}

/** Reads a whole SSE response into its events. */
export async function readSse(response: Response): Promise<Array<{ event?: string; data: unknown }>> {
  const text = await response.text();
  const events: Array<{ event?: string; data: unknown }> = [];
  for (const block of text.split("\n\n")) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length === 0) continue;
    const raw = data.join("\n");
    let parsed: unknown = raw;
    try {
      parsed = JSON.parse(raw);
    } catch {}
    events.push({ ...(event ? { event } : {}), data: parsed });
  }
  return events;
}

/** fetch against the warden with a bearer token and a JSON body. */
export function api(base: string, token: string | undefined) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
}
