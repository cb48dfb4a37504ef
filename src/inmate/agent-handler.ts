import { existsSync } from "node:fs";
import {
  type AgentEvent,
  AgentRuntime,
  createRuntimeScheduler,
  loadRuntimeConfig,
  SessionStore,
} from "../agent/index.js";
import type { ProtocolPeer } from "../channel/index.js";
import type { UserMessage } from "../contracts/cell/index.js";
import { AsyncQueue } from "../core/index.js";
import { BrainLayout } from "../memory/index.js";
import type { ChatMessage } from "../providers/index.js";
import { runFileOp } from "./brain-file-ops.js";
import { createBrainQueries } from "./brain-queries.js";
import type { CellHandler, TurnEvent } from "./cell-handler.js";
import { createProxyCommandClient } from "./command-proxy.js";
import { createProxyIntegrations } from "./integration-proxy.js";
import {
  createProxyFetcher,
  createProxyProviders,
  labelJobTurns,
  ProxyEmbedder,
  withModelCallLabels,
} from "./warden-proxies.js";

export interface AgentHandlerOptions {
  brainRoot: string;
  /** The bash tool's working directory; the cell's tmpfs workspace when it has one. */
  workspace?: string;
  /** The channel to the warden, which makes the model calls, provider embeddings and fetches for the cell. */
  warden: ProtocolPeer;
  /** What the bash tool adds to its commands' env, asked at each call: the HTTPS proxy and placeholders. */
  toolEnv?: () => Record<string, string>;
  /** The user's installed skills, mounted read-only: listed in the prompt, readable with the file tool. */
  skillsDir?: string;
  /**
   * Command's order worker (seed 001: workers are stateless): a turn recalls nothing, writes no transcript and
   * no memory, and the brain is neither watched nor indexed (an order's worktree, attached under it, is its work,
   * not memories), nor its cron jobs run. The brain is the cell's own scratch, gone with it.
   */
  stateless?: boolean;
}

/**
 * The production handler: the agent runtime (src/agent) of this cell's brain behind the protocol. A
 * UserMessage is one turn of its session (history stored in the brain database, so it survives restarts), a
 * JobTrigger runs the cron job through the brain's scheduler, which also runs cron/jobs.toml on its own.
 */
export async function createAgentHandler(options: AgentHandlerOptions): Promise<CellHandler> {
  const workspace = options.workspace ?? (existsSync("/tmp/workspace") ? "/tmp/workspace" : process.cwd());
  const { config } = loadRuntimeConfig(BrainLayout.open(options.brainRoot));
  const { indexing } = config;
  const embedder =
    indexing.embedder === "provider" && indexing.embedding_provider && indexing.embedding_model
      ? await ProxyEmbedder.create(options.warden, indexing.embedding_provider, indexing.embedding_model)
      : undefined;
  const integrations = createProxyIntegrations(options.warden);
  const runtime = await AgentRuntime.open(options.brainRoot, {
    workspace,
    ...(options.skillsDir ? { skillsDir: options.skillsDir } : {}),
    watchBrain: !options.stateless,
    providers: createProxyProviders(options.warden),
    pageFetcher: createProxyFetcher(options.warden),
    commandClient: createProxyCommandClient(options.warden),
    ...(options.toolEnv ? { toolEnv: options.toolEnv } : {}),
    integrations,
    ...(embedder ? { embedder } : {}),
    // A cell's tasks are capped (16 by default) and a microVM cell has one vCPU: a worker thread would spend
    // the cap and gain nothing there. The cell's bundle has no worker module either.
    indexWorker: "never",
  });
  // The warden labels each model call with its agent, session and job, for usage reports and per-job caps.
  const jobTurns = labelJobTurns(runtime);
  const scheduler = createRuntimeScheduler(jobTurns.runtime, { watch: !options.stateless });
  jobTurns.follow(scheduler);
  if (!options.stateless) scheduler.start();
  // Whoever asked (the agent, a job, the owner through the warden), the warden's own record of the
  // conversations must lose forgotten text too; the notice goes out before the turn or query ends.
  runtime.conversations.onForgotten(({ scope, places }) =>
    options.warden.send({ type: "MemoryForgotten", scope, places }),
  );
  const sessions = new SessionStore(runtime.db);
  const queries = createBrainQueries(runtime, scheduler);
  const historyOf = (message: UserMessage): ChatMessage[] =>
    sessions.load(message.session_id)?.messages ??
    (message.history ?? []).map(
      (m): ChatMessage =>
        m.role === "user"
          ? { role: "user", content: m.content }
          : { role: "assistant", content: m.content, toolCalls: [] },
    );
  return {
    name: options.stateless ? "order" : "agent",
    onHello: (hello) => integrations.learn(hello),
    describe() {
      runtime.refreshConfig();
      const agents = [...runtime.runtimeConfig.profiles.values()].map(({ profile: p }) => ({
        name: p.name,
        provider: p.provider,
        model: p.model,
      }));
      return { agents, defaultAgent: runtime.runtimeConfig.config.default_agent };
    },
    async *onUserMessage(message, context) {
      const events = new AsyncQueue<TurnEvent>();
      const push = (event: TurnEvent) => events.push(event);
      // When each call started, so the chat view can show how long it took.
      const started = new Map<string, number>();
      const emit = (event: AgentEvent) => {
        if (event.type === "text_delta") push({ kind: "delta", delta: event.delta });
        else if (event.type === "tool_call") started.set(event.call.id, performance.now());
        else if (event.type === "tool_result") {
          const t0 = started.get(event.call.id);
          started.delete(event.call.id);
          push({
            kind: "tool",
            callId: event.call.id,
            tool: event.call.name,
            isError: event.result.isError,
            content: event.result.content,
            outcome: event.result.outcome,
            args: clipArgs(event.result.auditArgs ?? event.call.arguments),
            ...(t0 === undefined ? {} : { durationMs: performance.now() - t0 }),
          });
        }
      };
      const agent = message.agent ?? runtime.runtimeConfig.config.default_agent;
      // A note saved in the inspector just before this message is part of what the turn may recall.
      if (!options.stateless) await queries.indexChanges().catch(() => undefined);
      const turn = withModelCallLabels({ agent, session: message.session_id }, () =>
        runtime.runTurn({
          prompt: message.text,
          sessionId: message.session_id,
          history: historyOf(message),
          // The warden's stamp on the message is the turn's time: the transcript records when the user spoke,
          // by the host's clock rather than a guest clock that may have drifted (a microVM under TCG).
          now: new Date(message.timestamp),
          signal: context.signal,
          emit,
          ...(options.stateless ? { recall: false, transcript: false } : {}),
          ...(message.agent ? { agent: message.agent } : {}),
        }),
      ).then(
        (result) => {
          sessions.save(message.session_id, result.agent, result.messages);
          push({
            kind: "final",
            text: result.text,
            usage: result.usage,
            stopReason: result.stopReason === "max_steps" ? "length" : result.stopReason,
            ...(result.error ? { error: result.error.message, failure: result.error } : {}),
          });
        },
        (error: Error) =>
          push({ kind: "final", text: "", stopReason: "error", error: error.message || "turn failed" }),
      );
      for await (const event of events) {
        yield event;
        if (event.kind === "final") break;
      }
      await turn;
    },
    attach(notify) {
      // Scheduled runs (not JobTriggers, which are answered in place) are reported as they finish.
      scheduler.on("notification", (n) => {
        if (n.reason === "manual" || n.status === "running" || n.status === "queued") return;
        notify(
          n.status === "failed"
            ? { job_id: n.jobId, status: "failed", error: n.error ?? "the job failed" }
            : { job_id: n.jobId, status: n.status, ...(n.resultRef ? { result_ref: n.resultRef } : {}) },
        );
      });
    },
    async onFileOp(request, context) {
      const outcome = await runFileOp(context.brainRoot, request);
      if (!outcome.error && (request.op === "write" || request.op === "delete")) queries.markChanged();
      return outcome;
    },
    onQuery: (request) => queries.answer(request),
    async *onJobTrigger(trigger) {
      yield { status: "running" };
      try {
        // A job just added through the warden may not have reached the scheduler's debounced reload yet.
        if (!scheduler.definitions().some((job) => job.id === trigger.job_id)) scheduler.reload();
        const done = await scheduler.runNow(trigger.job_id, trigger.prompt);
        const ok = done.status === "succeeded";
        yield ok
          ? { status: "succeeded", ...(done.resultRef ? { result_ref: done.resultRef } : {}) }
          : { status: "failed", error: done.error ?? `the job ended ${done.status}` };
      } catch (error) {
        yield { status: "failed", error: (error as Error).message || "the job could not run" };
      }
    },
    async close() {
      await scheduler.stop();
      await runtime.close();
    },
  };
}

const MAX_ARGS_CHARS = 4_000;

/** Tool arguments for the chat view: a file write's content must not make every tool row megabytes long. */
function clipArgs(args: string): string {
  return args.length > MAX_ARGS_CHARS ? `${args.slice(0, MAX_ARGS_CHARS)}…` : args;
}
