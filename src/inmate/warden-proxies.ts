import { AsyncLocalStorage } from "node:async_hooks";
import type { AgentRuntime, CronScheduler, PageFetcher, TurnRequest } from "../agent/index.js";
import { ToolRefusal } from "../agent/index.js";
import type { MessageBody, ProtocolPeer } from "../channel/index.js";
import { type ProtocolMessage, parseFetchUrl, targetRefusal } from "../contracts/cell/index.js";
import type { Embedder } from "../memory/index.js";
import {
  type ChatRequest,
  emptyAssistantMessage,
  type ProviderErrorCode,
  ProviderRegistry,
  type StreamEvent,
  zeroUsage,
} from "../providers/index.js";

// Inside a cell there is no provider key and no network: model calls, provider embeddings and web fetches are
// requests to the warden over the cell's one channel. These adapters give the agent runtime the interfaces it
// already uses (Provider, Embedder, PageFetcher), so the runtime does not know whether it runs in a cell.

/** What a model call is for, as the warden's usage records and per-agent and per-job caps label it. */
export interface ModelCallLabels {
  agent?: string;
  session?: string;
  job?: string;
}

const callLabels = new AsyncLocalStorage<ModelCallLabels>();

/**
 * Runs `work` (a turn, a job run) with its model calls labelled: the provider interface carries no session or
 * job, so the labels travel with the async context instead. The warden charges the cell's owner regardless.
 */
export function withModelCallLabels<T>(labels: ModelCallLabels, work: () => T): T {
  return callLabels.run(labels, work);
}

/** A registry in which every provider name is the warden's model proxy; the warden decides which exist. */
export function createProxyProviders(peer: ProtocolPeer): ProviderRegistry {
  return new ProviderRegistry((name) => ({
    name,
    baseUrl: "warden:",
    stream: (request, options) => proxyStream(peer, name, request, options?.signal),
  }));
}

function failure(code: ProviderErrorCode, message: string): StreamEvent {
  return {
    type: "error",
    error: { code, message, retryable: false },
    message: emptyAssistantMessage(),
    usage: zeroUsage(),
  };
}

async function* proxyStream(
  peer: ProtocolPeer,
  provider: string,
  request: ChatRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent> {
  if (signal?.aborted) {
    yield failure("aborted", "the call was aborted before it started");
    return;
  }
  const body: MessageBody = {
    type: "ModelRequest",
    provider,
    model: request.model,
    messages: request.messages,
    ...(request.tools?.length ? { tools: request.tools } : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...labelFields(callLabels.getStore()),
  };
  yield* relay(peer, body, signal, (reply) => {
    if (reply.type === "ModelEvent") return { event: reply.event, final: isLast(reply.event) };
    if (reply.type === "Error") {
      const code: ProviderErrorCode =
        reply.code === "forbidden" || reply.code === "invalid_message" ? "refused" : "upstream_error";
      return { event: failure(code, `the warden refused the model call: ${reply.message}`), final: true };
    }
    return undefined;
  });
}

/**
 * The runtime as the cron scheduler sees it: each run's turn labelled with its job and session. The scheduler
 * announces a run (its job and fresh session) just before it starts the run's turn; `follow` listens for that.
 */
export function labelJobTurns(runtime: AgentRuntime): {
  runtime: AgentRuntime;
  follow(scheduler: CronScheduler): void;
} {
  const jobOfSession = new Map<string, string>();
  const labelled = new Proxy(runtime, {
    get(target, key) {
      if (key !== "runTurn") return Reflect.get(target, key, target);
      return (request: TurnRequest) => {
        const job = request.sessionId === undefined ? undefined : jobOfSession.get(request.sessionId);
        const labels: ModelCallLabels = {
          agent: request.agent ?? target.runtimeConfig.config.default_agent,
          ...(request.sessionId ? { session: request.sessionId } : {}),
          ...(job ? { job } : {}),
        };
        return withModelCallLabels(labels, () => target.runTurn(request));
      };
    },
  });
  return {
    runtime: labelled,
    follow(scheduler) {
      scheduler.on("notification", (n) => {
        if (n.status === "running") jobOfSession.set(n.sessionId, n.jobId);
        else if (n.status !== "queued") jobOfSession.delete(n.sessionId);
      });
    },
  };
}

function labelFields(
  labels: ModelCallLabels | undefined,
): Partial<Record<"agent" | "session" | "job", string>> {
  const fields: Partial<Record<"agent" | "session" | "job", string>> = {};
  if (labels?.agent) fields.agent = labels.agent;
  if (labels?.session) fields.session = labels.session;
  if (labels?.job) fields.job = labels.job;
  return fields;
}

function isLast(event: StreamEvent): boolean {
  return event.type === "done" || event.type === "error";
}

/** Sends one request, yields what `map` makes of each reply, and cancels the request when `signal` aborts. */
async function* relay(
  peer: ProtocolPeer,
  body: MessageBody,
  signal: AbortSignal | undefined,
  map: (reply: ProtocolMessage) => { event: StreamEvent; final: boolean } | undefined,
): AsyncGenerator<StreamEvent> {
  try {
    const replies = peer.request(body, signal ? { signal } : {});
    for await (const reply of replies) {
      const mapped = map(reply);
      if (!mapped) continue;
      yield mapped.event;
      if (mapped.final) return;
    }
    yield failure("truncated_stream", "the warden ended the model call without a final event");
  } catch (error) {
    yield signal?.aborted
      ? failure("aborted", "the call was aborted")
      : failure("network_error", `the warden's model proxy is unreachable: ${(error as Error).message}`);
  }
}

/** Embeddings through the warden; the first call (at open) learns the model's dimensions. */
export class ProxyEmbedder implements Embedder {
  readonly id: string;

  private constructor(
    private readonly peer: ProtocolPeer,
    private readonly provider: string,
    readonly model: string,
    readonly dimensions: number,
  ) {
    this.id = `warden:${provider}`;
  }

  static async create(peer: ProtocolPeer, provider: string, model: string): Promise<ProxyEmbedder> {
    const [probe] = await embedVia(peer, provider, model, ["dimension probe"]);
    if (!probe?.length) throw new Error(`the warden's embeddings for ${provider}/${model} came back empty`);
    return new ProxyEmbedder(peer, provider, model, probe.length);
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    options.signal?.throwIfAborted();
    const vectors = await embedVia(this.peer, this.provider, this.model, texts);
    return vectors.map((v) => {
      if (v.length !== this.dimensions)
        throw new Error(`embedding has ${v.length} dimensions, expected ${this.dimensions}`);
      return Float32Array.from(v);
    });
  }
}

async function embedVia(
  peer: ProtocolPeer,
  provider: string,
  model: string,
  texts: readonly string[],
): Promise<number[][]> {
  const reply = await peer.call({ type: "EmbedRequest", provider, model, texts: [...texts] });
  if (reply.type === "EmbedResult") {
    if (reply.vectors.length !== texts.length)
      throw new Error(`the warden returned ${reply.vectors.length} vectors for ${texts.length} texts`);
    return reply.vectors;
  }
  throw new Error(reply.type === "Error" ? reply.message : `unexpected ${reply.type} to EmbedRequest`);
}

/**
 * The browser tool's fetch through the warden. The brain's own policy is checked here first (a brain can only
 * narrow what the host allows): the scheme, the host lists, and an address literal against the private ranges,
 * the only addresses a cell without DNS sees. The warden applies the host's policy, the brain's deny list to
 * every resolved address, and the private-address checks.
 */
export function createProxyFetcher(peer: ProtocolPeer): PageFetcher {
  return async (target, policy, limits, signal) => {
    const parsed = parseFetchUrl(target);
    if ("refusal" in parsed) throw new ToolRefusal(parsed.refusal);
    const { url } = parsed;
    const refusal = targetRefusal(url, policy);
    if (refusal !== undefined) throw new ToolRefusal(refusal);
    signal.throwIfAborted();
    const last = await peer.call(
      {
        type: "FetchRequest",
        url: url.href,
        max_bytes: limits.maxBytes,
        timeout_ms: limits.timeoutMs,
        // The cell has no DNS: only the warden's lookup can hold the brain's denied addresses to every name.
        ...(policy.denyHosts.length > 0 ? { deny_hosts: policy.denyHosts.slice(0, 1000) } : {}),
      },
      { signal },
    );
    if (last.type === "FetchResult") {
      return {
        url: last.url,
        status: last.status,
        contentType: last.content_type,
        body: Buffer.from(last.body_base64, "base64"),
        truncated: last.truncated,
      };
    }
    if (last.type === "Error" && last.code === "forbidden") throw new ToolRefusal(last.message);
    throw new Error(last.type === "Error" ? last.message : "the warden did not answer the fetch");
  };
}
