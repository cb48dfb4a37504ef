import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentProfile } from "../contracts/index.js";
import { createLogger, type Logger, newId } from "../core/index.js";
import {
  BRAIN_PATHS,
  BrainLayout,
  BrainMemory,
  type Embedder,
  retrievalFromProfile,
  type SearchHit,
} from "../memory/index.js";
import {
  type ChatMessage,
  createProviderRegistry,
  type ProviderRegistry,
  type ProviderTuning,
} from "../providers/index.js";
import { AgentDatabase } from "./agent-db.js";
import type { AgentEvent, AgentRunResult } from "./agent-event.js";
import { runAgent } from "./agent-loop.js";
import { type AuditSink, BrainAuditLog } from "./audit-log.js";
import { DayLog } from "./day-log.js";
import { createMemoryCompaction, createModelSummariser } from "./memory-compaction.js";
import { assembleSystemPrompt, readPromptFiles } from "./prompt-assembly.js";
import { allowedTools, loadRuntimeConfig, type RuntimeConfig, selectProfile } from "./runtime-config.js";
import { createBashTool } from "./tools/bash-tool.js";
import { createBrowserTool, type PageFetcher } from "./tools/browser-tool.js";
import { createFileTool } from "./tools/file-tool.js";
import { createMemoryTool } from "./tools/memory-tool.js";
import { PathPolicy } from "./tools/path-policy.js";
import { createToolBox, type ToolBox } from "./tools/tool-box.js";
import type { AgentTool } from "./tools/tool-definition.js";

export interface AgentRuntimeOptions {
  env?: NodeJS.ProcessEnv;
  /** The bash tool's working directory and the second file root; default `[tools.file] workspace`. */
  workspace?: string;
  /** Where the file tool may go; default the brain, the workspace and `[tools.file] extra_roots`. */
  fileRoots?: string[];
  /** Lets the browser reach loopback and private addresses; default `[tools.browser] allow_private`. */
  allowPrivateNetwork?: boolean;
  providerTuning?: ProviderTuning;
  /** Replaces the providers of irowclaw.toml: in a cell, every provider is the warden's model proxy. */
  providers?: ProviderRegistry;
  /** Replaces the browser's direct fetch: in a cell, the warden fetches under the host's egress policy. */
  pageFetcher?: PageFetcher;
  /** Replaces the embedder `[indexing]` asks for (tests use a small deterministic one). */
  embedder?: Embedder;
  /** The model's context window and the head room that triggers the pre-compaction flush; default `[agent]`. */
  contextTokens?: number;
  reserveTokens?: number;
  maxSteps?: number;
  /** Index the brain when the runtime opens, so recall sees files edited while it was stopped. */
  indexOnOpen?: boolean;
  /** Keep the index fresh while the runtime is open (long sessions, the scheduler daemon). */
  watchBrain?: boolean;
  logger?: Logger;
}

export interface TurnRequest {
  prompt: string;
  agent?: string;
  /** The conversation so far (no system prompt); empty for a fresh session such as a cron job. */
  history?: ChatMessage[];
  sessionId?: string;
  signal?: AbortSignal;
  emit?: (event: AgentEvent) => void;
  maxSteps?: number;
}

export interface TurnResult extends AgentRunResult {
  sessionId: string;
  agent: string;
  provider: string;
  model: string;
  recalled: SearchHit[];
}

/**
 * irowclaw for one brain: its config and profiles, providers, memory, tools and audit trail, ready to run turns.
 * Everything a turn needs is resolved here once; a turn itself is `runAgent` over a freshly assembled prompt.
 */
export class AgentRuntime {
  readonly audit: AuditSink;
  readonly dayLog: DayLog;
  private readonly toolBoxes = new Map<string, ToolBox>();
  private pathPolicy: PathPolicy | undefined;
  private configStamp: string;

  private constructor(
    readonly brain: BrainLayout,
    private config: RuntimeConfig,
    readonly memory: BrainMemory,
    /** The runtime's own tables (audit, sessions, cron) on their own connection to the brain database. */
    readonly db: AgentDatabase,
    private registry: ProviderRegistry,
    private readonly options: AgentRuntimeOptions,
    private readonly logger: Logger,
  ) {
    this.configStamp = configStamp(brain);
    this.dayLog = new DayLog(brain.root);
    this.audit = new BrainAuditLog(this.db, this.dayLog);
  }

  static async open(dir: string, options: AgentRuntimeOptions = {}): Promise<AgentRuntime> {
    const brain = BrainLayout.open(dir);
    const runtimeConfig = loadRuntimeConfig(brain);
    const env = options.env ?? process.env;
    const logger = options.logger ?? createLogger("agent");
    const memory = await BrainMemory.open(brain.root, {
      env,
      logger,
      ...(options.embedder ? { embedder: options.embedder } : {}),
    });
    let db: AgentDatabase;
    try {
      if (options.indexOnOpen ?? true) await memory.index();
      if (options.watchBrain) memory.watch();
      db = AgentDatabase.open(brain.databaseFile);
    } catch (error) {
      await memory.close();
      throw error;
    }
    const providers =
      options.providers ??
      createProviderRegistry(runtimeConfig.config.providers, env, options.providerTuning ?? {});
    return new AgentRuntime(brain, runtimeConfig, memory, db, providers, options, logger);
  }

  get runtimeConfig(): RuntimeConfig {
    return this.config;
  }

  get providers(): ProviderRegistry {
    return this.registry;
  }

  /**
   * Picks up edits of config/ made while the runtime runs (the memory inspector, a person with an editor):
   * a turn always runs with the profiles and tools the files say now. A broken edit keeps the last good
   * config and is reported, as the scheduler does with cron/jobs.toml.
   */
  refreshConfig(): void {
    const stamp = configStamp(this.brain);
    if (stamp === this.configStamp) return;
    this.configStamp = stamp;
    try {
      this.config = loadRuntimeConfig(this.brain);
    } catch (error) {
      this.logger.warn({ err: error }, "the brain's config has an error; keeping the last good one");
      return;
    }
    if (!this.options.providers) {
      const env = this.options.env ?? process.env;
      this.registry = createProviderRegistry(
        this.config.config.providers,
        env,
        this.options.providerTuning ?? {},
      );
    }
    this.toolBoxes.clear();
    this.pathPolicy = undefined;
  }

  profile(name?: string): AgentProfile {
    return selectProfile(this.runtimeConfig, name);
  }

  /** One user turn: recall, assemble the prompt, run the loop with the agent's tools and provider. */
  async runTurn(request: TurnRequest): Promise<TurnResult> {
    this.refreshConfig();
    const profile = this.profile(request.agent);
    const provider = this.providers.get(profile.provider);
    const sessionId = request.sessionId ?? newId();
    const allow = allowedTools(this.runtimeConfig.config, profile);
    const retrieval = retrievalFromProfile(profile);
    const recalled = await this.recall(request.prompt, retrieval, request.signal);
    const files = await readPromptFiles(this.brain, profile);
    const systemPrompt = assembleSystemPrompt({
      agent: profile.name,
      ...files,
      recalled,
      tools: allow,
      now: new Date(),
    });
    const tools = this.toolBox(profile, retrieval.topK);
    const limits = { ...this.runtimeConfig.config.agent, ...profile.limits };
    const compaction = createMemoryCompaction(this.memory, {
      contextTokens: this.options.contextTokens ?? limits.context_tokens,
      reserveTokens: this.options.reserveTokens ?? limits.reserve_tokens,
      summarise: createModelSummariser(provider.stream, profile.model),
    });
    const maxSteps = request.maxSteps ?? this.options.maxSteps ?? limits.max_steps;
    const result = await runAgent(
      {
        sessionId,
        model: profile.model,
        systemPrompt,
        messages: [...(request.history ?? []), { role: "user", content: request.prompt }],
      },
      {
        stream: provider.stream,
        tools,
        compaction,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.emit ? { emit: request.emit } : {}),
        maxSteps,
      },
    );
    return {
      ...result,
      sessionId,
      agent: profile.name,
      provider: provider.name,
      model: profile.model,
      recalled,
    };
  }

  async close(): Promise<void> {
    try {
      await this.memory.close();
    } finally {
      this.db.close();
    }
  }

  private get workspace(): string {
    return this.options.workspace ?? this.runtimeConfig.config.tools.file.workspace;
  }

  /** One tool box per agent, built on first use: tool schemas are converted to JSON Schema only once. */
  private toolBox(profile: AgentProfile, topK: number): ToolBox {
    let box = this.toolBoxes.get(profile.name);
    if (!box) {
      const roots = [this.brain.root, this.workspace, ...this.runtimeConfig.config.tools.file.extra_roots];
      this.pathPolicy ??= new PathPolicy(this.options.fileRoots ?? roots, {
        readOnly: [join(this.brain.root, BRAIN_PATHS.config), join(this.brain.root, BRAIN_PATHS.db)],
      });
      box = createToolBox({
        tools: this.createTools(topK),
        allow: allowedTools(this.runtimeConfig.config, profile),
        agent: profile.name,
        pathPolicy: this.pathPolicy,
        audit: this.audit,
      });
      this.toolBoxes.set(profile.name, box);
    }
    return box;
  }

  private createTools(topK: number): AgentTool[] {
    const { tools } = this.runtimeConfig.config;
    return [
      createBashTool({
        workspace: this.workspace,
        timeoutMs: tools.bash.timeout_ms,
        maxOutputBytes: tools.bash.max_output_bytes,
      }),
      createFileTool(),
      createBrowserTool({
        policy: {
          egress: tools.network.egress,
          allowHosts: tools.network.allow_hosts,
          denyHosts: tools.network.deny_hosts,
          allowPrivate: this.options.allowPrivateNetwork ?? tools.browser.allow_private,
        },
        maxBytes: tools.browser.max_bytes,
        timeoutMs: tools.browser.timeout_ms,
        ...(this.options.pageFetcher ? { fetch: this.options.pageFetcher } : {}),
      }),
      createMemoryTool(this.memory, { topK }),
    ];
  }

  private async recall(
    prompt: string,
    retrieval: ReturnType<typeof retrievalFromProfile>,
    signal: AbortSignal | undefined,
  ): Promise<SearchHit[]> {
    try {
      return await this.memory.recall(prompt, { ...retrieval, ...(signal ? { signal } : {}) });
    } catch (error) {
      // A turn without recalled memory is better than no turn: the agent can still recall through its tool.
      this.logger.warn({ err: error }, "recall for the prompt failed; answering without recalled memory");
      return [];
    }
  }
}

/** Sizes and modification times of the config files, cheap enough to compare before every turn. */
function configStamp(brain: BrainLayout): string {
  const parts: string[] = [];
  const add = (file: string) => {
    try {
      const s = statSync(file);
      parts.push(`${file}:${s.size}:${s.mtimeMs}`);
    } catch {
      parts.push(`${file}:-`);
    }
  };
  add(brain.resolve(BRAIN_PATHS.irowclawConfig));
  const agents = brain.resolve(BRAIN_PATHS.agents);
  add(agents);
  try {
    for (const name of readdirSync(agents).sort()) add(join(agents, name));
  } catch {}
  return parts.join("|");
}
