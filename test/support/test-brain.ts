import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentRuntime } from "../../src/agent/index.js";
import { createLogger } from "../../src/core/index.js";
import { initBrain } from "../../src/memory/index.js";
import { WordHashEmbedder } from "./word-hash-embedder.js";

export interface TestBrain {
  root: string;
  workspace: string;
  write(path: string, text: string): void;
  remove(): void;
}

export interface TestBrainOptions {
  /** The OpenAI-compatible base URL the brain's `local` provider points at (the model server). */
  baseUrl: string;
  tools?: string[];
  profileTools?: string[];
  egress?: "deny" | "allow";
  allowHosts?: string[];
  denyHosts?: string[];
  bashTimeoutMs?: number;
  /** Use the model server's /v1/embeddings instead of the built-in embedder (CLI subprocess tests). */
  providerEmbeddings?: boolean;
}

/**
 * A fresh brain (memory's starter layout) whose default agent `assistant` talks to the test model server as
 * provider `local`, model `test-model`, plus a private workspace directory.
 */
export async function createTestBrain(options: TestBrainOptions): Promise<TestBrain> {
  const base = mkdtempSync(join(tmpdir(), "ironclaw-agent-"));
  const root = join(base, "brain");
  const workspace = join(base, "workspace");
  mkdirSync(workspace);
  await initBrain(root);
  const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(", ")}]`;
  const indexing = options.providerEmbeddings
    ? '[indexing]\nembedder = "provider"\nembedding_provider = "local"\nembedding_model = "test-embed"\n'
    : "";
  writeFileSync(
    join(root, "config/irowclaw.toml"),
    `default_agent = "assistant"

[providers.local]
base_url = "${options.baseUrl}"

[tools]
allow = ${list(options.tools ?? ["bash", "file", "browser", "memory"])}

[tools.bash]
timeout_ms = ${options.bashTimeoutMs ?? 10_000}

[tools.network]
egress = "${options.egress ?? "deny"}"
allow_hosts = ${list(options.allowHosts ?? [])}
deny_hosts = ${list(options.denyHosts ?? [])}

${indexing}`,
  );
  const profileTools = options.profileTools ? `\n[tools]\nallow = ${list(options.profileTools)}\n` : "";
  writeFileSync(
    join(root, "config/agents/assistant.toml"),
    `name = "assistant"\nprovider = "local"\nmodel = "test-model"\n${profileTools}`,
  );
  return {
    root,
    workspace,
    write(path, text) {
      const file = join(root, path);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text);
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * The agent runtime on a test brain as the tests use it: the word-hash embedder, the brain's own workspace,
 * silent logs, no environment, and the clock the test moves (the real one when left out).
 */
export function openTestRuntime(
  brain: TestBrain,
  options: { now?: () => Date; contextTokens?: number; reserveTokens?: number } = {},
): Promise<AgentRuntime> {
  return AgentRuntime.open(brain.root, {
    ...options,
    embedder: new WordHashEmbedder(),
    workspace: brain.workspace,
    logger: createLogger("test", { level: "silent" }),
    env: {},
  });
}
