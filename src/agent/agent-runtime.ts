import { join } from "node:path";
import type { AgentProfile } from "../contracts/index.js";
import { createLogger, type Logger, newId } from "../core/index.js";
import {
  BRAIN_PATHS,
  BrainLayout,
  BrainMemory,
  retrievalFromProfile,
  type SearchHit,
} from "../memory/index.js";
import { createProviderRegistry, OpenAiEmbedder, type ProviderRegistry } from "../providers/index.js";
import { AgentDatabase } from "./agent-db.js";

export type { AgentRuntimeOptions, TurnRequest, TurnResult } from "./runtime-types.js";

import { runAgent } from "./agent-loop.js";
import { type AuditSink, BrainAuditLog } from "./audit-log.js";
import { configStamp } from "./config-stamp.js";
import { ConversationMemory } from "./conversation-memory.js";
import { DayLog } from "./day-log.js";
import { createMemoryCompaction, createModelSummariser } from "./memory-compaction.js";
import { assembleSystemPrompt, readPromptFiles } from "./prompt-assembly.js";
import { allowedTools, loadRuntimeConfig, type RuntimeConfig, selectProfile } from "./runtime-config.js";
import { createRuntimeTools } from "./runtime-tools.js";
import type { AgentRuntimeOptions, TurnRequest, TurnResult } from "./runtime-types.js";
import { SkillCatalog } from "./skills/skill-catalog.js";
import { renderSkillsPrompt } from "./skills/skills-prompt.js";
import { PathPolicy } from "./tools/path-policy.js";
import { createToolBox, type ToolBox } from "./tools/tool-box.js";

/**
 * irowclaw for one brain: its config and profiles, providers, memory, tools and audit trail, ready to run turns.
 * Everything a turn needs is resolved here once; a turn itself is `runAgent` over a freshly assembled prompt.
 */
export class AgentRuntime {
  readonly audit: AuditSink;
  readonly dayLog: DayLog;
  /** Transcripts, forgetting, corrections and promotion proposals of this brain's conversations. */
  readonly conversations: ConversationMemory;
  private readonly now: () => Date;
  private readonly toolBoxes = new Map<string, ToolBox>();
  private pathPolicy: PathPolicy | undefined;
  private configStamp: string;
  private readonly skills: SkillCatalog | undefined;

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
    this.dayLog = new DayLog(brain.root, (write) => memory.writeFiles(write));
    this.audit = new BrainAuditLog(this.db, this.dayLog);
    this.now = options.now ?? (() => new Date());
    this.skills = options.skillsDir ? new SkillCatalog(options.skillsDir) : undefined;
    this.conversations = new ConversationMemory({
      memory,
      db,
      dayLog: this.dayLog,
      now: this.now,
      logger,
      promotionRule: () => {
        const p = this.runtimeConfig.config.promotion;
        return p.enabled
          ? { minSessions: p.min_sessions, minDays: p.min_days, windowDays: p.window_days }
          : null;
      },
    });
  }

  static async open(dir: string, options: AgentRuntimeOptions = {}): Promise<AgentRuntime> {
    const brain = BrainLayout.open(dir);
    const runtimeConfig = loadRuntimeConfig(brain);
    const env = options.env ?? process.env;
    const logger = options.logger ?? createLogger("agent");
    const memory = await BrainMemory.open(brain.root, {
      env,
      logger,
      remoteEmbedder: OpenAiEmbedder.create,
      ...(options.embedder ? { embedder: options.embedder } : {}),
      ...(options.indexWorker ? { indexWorker: options.indexWorker } : {}),
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
    const startedAt = request.now ?? this.now();
    const t0 = performance.now();
    const allow = allowedTools(this.runtimeConfig.config, profile);
    const retrieval = retrievalFromProfile(profile);
    const recalled =
      request.recall === false ? [] : await this.recall(request.prompt, retrieval, sessionId, request.signal);
    const files = await readPromptFiles(this.brain, profile);
    const systemPrompt = assembleSystemPrompt({
      agent: profile.name,
      ...files,
      recalled,
      tools: allow,
      now: startedAt,
      skills: this.skillsPrompt(allow),
    });
    const tools = this.toolBox(profile, retrieval.topK);
    const limits = { ...this.runtimeConfig.config.agent, ...profile.limits };
    const compaction = createMemoryCompaction(this.memory, {
      contextTokens: this.options.contextTokens ?? limits.context_tokens,
      reserveTokens: this.options.reserveTokens ?? limits.reserve_tokens,
      summarise: createModelSummariser(provider.stream, profile.model),
    });
    const maxSteps = request.maxSteps ?? this.options.maxSteps ?? limits.max_steps;
    // From here on nothing throws (runAgent reports failures as data), so endTurn always clears this note.
    this.conversations.noteRecalled(sessionId, recalled);
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
    const kept = await this.conversations.endTurn({
      sessionId,
      agent: profile.name,
      prompt: request.prompt,
      result,
      startedAt,
      finishedAt: new Date(startedAt.getTime() + (performance.now() - t0)),
      transcript: request.transcript ?? true,
    });
    return {
      ...result,
      ...kept,
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
    // The integrations the user has configured can change while the cell runs (a token added): the tool box
    // is built again when they do.
    const key = `${profile.name}\n${this.options.integrations?.configured().join(",") ?? ""}`;
    let box = this.toolBoxes.get(key);
    if (!box) {
      const skills = this.options.skillsDir;
      const roots = [
        this.brain.root,
        this.workspace,
        ...this.runtimeConfig.config.tools.file.extra_roots,
        ...(skills ? [skills] : []),
      ];
      this.pathPolicy ??= new PathPolicy(this.options.fileRoots ?? roots, {
        readOnly: [
          join(this.brain.root, BRAIN_PATHS.config),
          join(this.brain.root, BRAIN_PATHS.db),
          // Read-only by the mount in a cell; by the policy as well, for the backend that has no mounts.
          ...(skills ? [skills] : []),
        ],
      });
      box = createToolBox({
        tools: this.createTools(topK),
        allow: allowedTools(this.runtimeConfig.config, profile),
        agent: profile.name,
        pathPolicy: this.pathPolicy,
        audit: this.audit,
        now: this.now,
      });
      this.toolBoxes.set(key, box);
    }
    return box;
  }

  private createTools(topK: number) {
    return createRuntimeTools({
      config: this.runtimeConfig.config,
      workspace: this.workspace,
      ...(this.options.allowPrivateNetwork === undefined
        ? {}
        : { allowPrivateNetwork: this.options.allowPrivateNetwork }),
      ...(this.options.pageFetcher ? { pageFetcher: this.options.pageFetcher } : {}),
      ...(this.options.commandClient ? { commandClient: this.options.commandClient } : {}),
      ...(this.options.toolEnv ? { toolEnv: this.options.toolEnv } : {}),
      ...(this.options.integrations ? { integrations: this.options.integrations } : {}),
      memory: this.conversations.toolOperations(),
      topK,
    });
  }

  /**
   * The installed skills' section, listed afresh each turn (cheap while nothing changed): only where the agent
   * can read a SKILL.md, with its file tool.
   */
  private skillsPrompt(allow: readonly string[]): string {
    if (!this.skills || !allow.includes("file")) return "";
    try {
      return renderSkillsPrompt(this.skills.list(), this.runtimeConfig.config.skills.prompt_budget_chars);
    } catch (error) {
      // A turn without its skills listed is better than no turn.
      this.logger.warn({ err: error }, "listing the installed skills failed; answering without them");
      return "";
    }
  }

  /**
   * Passages for the prompt. The session's own transcript is left out: its turns are in the conversation
   * already, and would only push other memories out of the top k.
   */
  private async recall(
    prompt: string,
    retrieval: ReturnType<typeof retrievalFromProfile>,
    sessionId: string,
    signal: AbortSignal | undefined,
  ): Promise<SearchHit[]> {
    const own = this.conversations.transcripts.pathOf(sessionId);
    try {
      const topK = own ? Math.min(100, retrieval.topK + 4) : retrieval.topK;
      const hits = await this.memory.recall(prompt, { ...retrieval, topK, ...(signal ? { signal } : {}) });
      return hits.filter((h) => h.path !== own).slice(0, retrieval.topK);
    } catch (error) {
      // A turn without recalled memory is better than no turn: the agent can still recall through its tool.
      this.logger.warn({ err: error }, "recall for the prompt failed; answering without recalled memory");
      return [];
    }
  }
}
