import type { CellHandle } from "../cells/index.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../channel/index.js";
import type {
  CommandRequest,
  EmbedRequest,
  FetchRequest,
  HostPolicy,
  IntegrationRequest,
  IronclawdConfig,
  ModelRequest,
  ProtocolErrorCode,
  ProtocolMessage,
  TokenUsage,
} from "../contracts/index.js";
import type { Logger } from "../core/index.js";
import { EgressRefusal, fetchPage } from "../egress/index.js";
import type { ProviderFailure, StreamEvent } from "../providers/index.js";
import { OutputMeter } from "../providers/index.js";
import type { AuditEntry } from "./audit-store.js";
import type { CallState, ModelBudget, ModelCallStart, Overrun } from "./budget/index.js";
import { type CommandReply, commandNotEnabled } from "./command-requests.js";
import { type HostProviders, isRefusal } from "./host-providers.js";
import type { IntegrationReply } from "./integrations/index.js";
import { userModelFailure } from "./model-failure.js";

const FETCH_BODY_CAP = Math.floor((DEFAULT_MAX_FRAME_BYTES - 64 * 1024) * 0.75);

export type { AuditEntry } from "./audit-store.js";

/** One finished model call, as the provider reported it (the budget keeps its own records). */
export interface ModelCallRecord {
  userId: string;
  agent: string | undefined;
  provider: string;
  model: string;
  usage: TokenUsage;
  outcome: "done" | "error";
  ms: number;
}

export interface CellRequestOptions {
  userId: string;
  providers: HostProviders;
  egress: IronclawdConfig["egress"];
  audit: (entry: AuditEntry) => void;
  logger: Logger;
  onModelCall?: (record: ModelCallRecord) => void;
  /** Spend caps and usage records; without it calls are neither capped nor recorded. */
  budget?: ModelBudget;
  /** Why this model call may not leave (the soul guard's hold), or undefined; asked before anything else. */
  beforeModelCall?: (request: ModelRequest) => Promise<string | undefined>;
  /**
   * The host's own labels for every model call of this cell, recorded in place of what the frame says: a command
   * cell's calls are recorded against its run (session) and order (job), whatever its agent claims.
   */
  labels?: { session: string; job: string };
  /** The command tool's requests (command-requests.ts); without it each is answered that command is off. */
  command?: (request: CommandRequest) => Promise<CommandReply>;
  /** The integration tools' requests (integrations/); without it each is answered that none is set up. */
  integrations?: (request: IntegrationRequest, signal: AbortSignal) => Promise<IntegrationReply>;
}

/**
 * The warden's side of a cell's own requests: model calls (the model proxy), provider embeddings, the
 * browser's fetches (the egress proxy), the command tool's runs and the integration tools' calls. The cell holds no key and has no network, so this is its only way
 * out; everything it asks is checked against the host's config, and refusals are audited. Returns a function
 * that detaches from the cell.
 */
export function serveCellRequests(cell: CellHandle, options: CellRequestOptions): () => void {
  const running = new Map<number, AbortController>();
  const start = (message: ProtocolMessage, work: (signal: AbortSignal) => Promise<void>) => {
    const abort = new AbortController();
    running.set(message.msg_id, abort);
    work(abort.signal)
      .catch((error: Error) => {
        options.logger.error({ err: error, type: message.type }, "a cell request failed");
        // The reason is the host's (it goes to the log); the cell, and so its user, hear only that it failed.
        refuse(cell, message, "internal", "the warden could not complete this request; try again");
      })
      .finally(() => running.delete(message.msg_id));
  };
  const detach = cell.onEvent((message) => {
    switch (message.type) {
      case "ModelRequest":
        return start(message, (signal) => proxyModel(cell, message, options, signal));
      case "EmbedRequest":
        return start(message, () => proxyEmbed(cell, message, options));
      case "FetchRequest":
        return start(message, (signal) => proxyFetch(cell, message, options, signal));
      case "CommandRequest":
        return start(message, () => serveCommand(cell, message, options));
      case "IntegrationRequest":
        return start(message, (signal) => serveIntegration(cell, message, options, signal));
      case "Cancel":
        running.get(message.target)?.abort();
        return;
      case "Error":
        // A refused request of ours is answered by the peer's waiter; an Error about a frame we could not
        // send (malformed, too large) is worth a line in the log.
        if (message.reply_to === undefined)
          options.logger.warn({ message: message.message }, "the cell reported an error");
        return;
      default:
        return;
    }
  });
  return () => {
    detach();
    for (const abort of running.values()) abort.abort();
  };
}

async function serveCommand(
  cell: CellHandle,
  request: CommandRequest,
  options: CellRequestOptions,
): Promise<void> {
  const serve =
    options.command ?? ((r: CommandRequest) => commandNotEnabled(options.audit)(options.userId, r));
  const reply = await serve(request);
  cell.send({ type: "CommandResult", reply_to: request.msg_id, ...reply });
}

async function serveIntegration(
  cell: CellHandle,
  request: IntegrationRequest,
  options: CellRequestOptions,
  signal: AbortSignal,
): Promise<void> {
  const reply: IntegrationReply = options.integrations
    ? await options.integrations(request, signal)
    : { ok: false, error: { code: "not_configured", message: "no integrations are set up on this host" } };
  cell.send({ type: "IntegrationResult", reply_to: request.msg_id, ...reply });
}

function refuse(cell: CellHandle, message: ProtocolMessage, code: ProtocolErrorCode, text: string): void {
  cell.send({ type: "Error", code, message: text.slice(0, 2000), reply_to: message.msg_id });
}

async function proxyModel(
  cell: CellHandle,
  request: ModelRequest,
  options: CellRequestOptions,
  signal: AbortSignal,
): Promise<void> {
  const refuseModel = (action: string, reason: string, detail: Record<string, unknown> = {}) => {
    options.audit({
      userId: options.userId,
      actor: `cell:${options.userId}`,
      action,
      detail: { provider: request.provider, model: request.model, ...detail, reason },
    });
    refuse(cell, request, "forbidden", reason);
  };
  // The cell's owner pays for its calls: a frame naming anyone else is a guest trying to charge them.
  if (request.user_id !== options.userId)
    return refuseModel("model.refused", `this cell belongs to ${options.userId}, not to ${request.user_id}`, {
      claimed_user: request.user_id,
    });
  const held = await options.beforeModelCall?.(request);
  if (held) return refuseModel("model.refused", held);
  const provider = options.providers.resolve(request.provider, request.model);
  if (isRefusal(provider)) return refuseModel("model.refused", provider.refused);
  const call: ModelCallStart = {
    userId: options.userId,
    provider: request.provider,
    model: request.model,
    messages: request.messages,
    ...(request.agent ? { agent: request.agent } : {}),
    ...(request.session ? { session: request.session } : {}),
    ...(request.job ? { job: request.job } : {}),
    ...options.labels,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.max_tokens === undefined ? {} : { maxTokens: request.max_tokens }),
  };
  // Before anything reaches the provider: a call no cap can afford is refused here, and costs nothing.
  const admission = options.budget?.admit(call);
  if (admission && !admission.ok)
    return refuseModel("budget.refused", admission.refusal.message, {
      agent: request.agent,
      job: request.job,
      kind: admission.refusal.kind,
    });
  const maxTokens = admission ? admission.maxTokens : request.max_tokens;
  // The warden holds a call to the output it reserved: a provider that ignores max_tokens is cut once the reply's
  // estimate passes it, so no call costs more than its reservation (by more than the chunk that passed it).
  const meter = maxTokens === undefined ? undefined : new OutputMeter(maxTokens);
  const started = Date.now();
  let final: Extract<StreamEvent, { type: "done" | "error" }> | undefined;
  let usage: TokenUsage | undefined;
  let accepted = false;
  const partial = { content: "", toolCalls: [] as Array<{ name: string; arguments: string }> };
  try {
    const stream = provider.stream(
      {
        model: request.model,
        messages: request.messages,
        ...(request.tools ? { tools: request.tools } : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        ...(maxTokens === undefined ? {} : { maxTokens }),
      },
      { signal, ...(meter ? { outputMeter: meter } : {}) },
    );
    for await (const event of stream) {
      if (event.type === "start") accepted = true;
      else if (event.type === "usage") usage = event.usage;
      else if (event.type === "text_delta") partial.content += event.delta;
      else if (event.type === "tool_call") partial.toolCalls.push(event.call);
      if (event.type === "error") auditModelFailure(event.error, request, options);
      // The cell hears what its user may see: the failure in words, without the provider's internals.
      const relayed =
        event.type === "error" ? { ...event, error: userModelFailure(event.error, request.model) } : event;
      cell.send({ type: "ModelEvent", reply_to: request.msg_id, event: relayed });
      if (event.type === "done" || event.type === "error") {
        final = event;
        options.onModelCall?.({
          userId: options.userId,
          agent: request.agent,
          provider: request.provider,
          model: request.model,
          usage: event.usage,
          outcome: event.type,
          ms: Date.now() - started,
        });
      }
    }
  } finally {
    // Whatever happened (even a stream that threw), the reservation turns into the real cost exactly once.
    if (admission?.ok) {
      const overrun = options.budget?.settle(admission, call, {
        state: stateOf(final, signal),
        ...(usage ? { usage } : {}),
        reply: final ? final.message : partial,
        accepted,
        ms: Date.now() - started,
        ...(meter ? { streamedOutputTokens: meter.tokens, cut: meter.passed } : {}),
      });
      if (overrun) auditOverrun(overrun, request, options);
    }
  }
}

/** A call past its reservation, for the user and the operator: what was held, charged, and the provider said. */
function auditOverrun(overrun: Overrun, request: ModelRequest, options: CellRequestOptions): void {
  options.audit({
    userId: options.userId,
    actor: "warden",
    action: "budget.overrun",
    detail: {
      provider: request.provider,
      model: request.model,
      ...(request.agent ? { agent: request.agent } : {}),
      cut: overrun.cut,
      reserved_micros: overrun.reservedMicros,
      charged_micros: overrun.chargedMicros,
      ...(overrun.reported
        ? {
            provider_input_tokens: overrun.reported.inputTokens,
            provider_output_tokens: overrun.reported.outputTokens,
            provider_cost_micros: overrun.reported.costMicros,
          }
        : {}),
    },
  });
}

/**
 * A failed model call's internals (the provider's URL and errno, status, its error body) for the operator.
 * Recorded as a host entry naming the user in its detail: a user's own audit view must not show them.
 */
function auditModelFailure(
  failure: ProviderFailure,
  request: ModelRequest,
  options: CellRequestOptions,
): void {
  if (failure.code === "aborted") return;
  options.audit({
    actor: `cell:${options.userId}`,
    action: "model.failed",
    detail: { user: options.userId, provider: request.provider, model: request.model, ...failure },
  });
}

function stateOf(final: StreamEvent | undefined, signal: AbortSignal): CallState {
  if (final?.type === "done") return "done";
  if (signal.aborted || (final?.type === "error" && final.error.code === "aborted")) return "aborted";
  return "error";
}

async function proxyEmbed(
  cell: CellHandle,
  request: EmbedRequest,
  options: CellRequestOptions,
): Promise<void> {
  const refuseEmbed = (action: string, reason: string, detail: Record<string, unknown> = {}) => {
    options.audit({
      userId: options.userId,
      actor: `cell:${options.userId}`,
      action,
      detail: { provider: request.provider, model: request.model, ...detail, reason },
    });
    refuse(cell, request, "forbidden", reason);
  };
  // Embeddings are billed by their input: the texts are the prompt and no output is reserved. Admitted before
  // the client is made, since making one asks the provider for the model's dimensions. The provider's own count
  // is not read back, so the record is the estimate and says so.
  const call: ModelCallStart = {
    userId: options.userId,
    provider: request.provider,
    model: request.model,
    messages: request.texts.map((content) => ({ role: "user" as const, content })),
    maxTokens: 0,
    ...options.labels,
  };
  const admission = options.budget?.admit(call);
  if (admission && !admission.ok)
    return refuseEmbed("budget.refused", admission.refusal.message, { kind: admission.refusal.kind });
  const started = Date.now();
  let state: CallState = "error";
  let accepted = false;
  try {
    const embedder = await options.providers.embedder(request.provider, request.model);
    if (isRefusal(embedder)) return refuseEmbed("embed.refused", embedder.refused);
    accepted = true;
    const vectors = await embedder.embed(request.texts);
    state = "done";
    cell.send({ type: "EmbedResult", reply_to: request.msg_id, vectors: vectors.map((v) => Array.from(v)) });
  } catch (error) {
    refuse(cell, request, "internal", `embedding failed: ${(error as Error).message}`);
  } finally {
    if (admission?.ok)
      options.budget?.settle(admission, call, {
        state,
        reply: { content: "", toolCalls: [] },
        accepted,
        ms: Date.now() - started,
      });
  }
}

async function proxyFetch(
  cell: CellHandle,
  request: FetchRequest,
  options: CellRequestOptions,
  signal: AbortSignal,
): Promise<void> {
  const { egress } = options;
  const policy: HostPolicy = {
    egress: egress.policy,
    allowHosts: egress.allow_hosts,
    // The brain's deny list narrows the host's, compared with every address a name resolves to.
    denyHosts: [...egress.deny_hosts, ...(request.deny_hosts ?? [])],
    allowPrivate: egress.allow_private,
  };
  // The cell may ask for less than the host allows, never more, and the page must fit one frame as base64.
  const limits = {
    maxBytes: Math.min(request.max_bytes ?? egress.max_bytes, egress.max_bytes, FETCH_BODY_CAP),
    timeoutMs: Math.min(request.timeout_ms ?? egress.timeout_ms, egress.timeout_ms),
    maxRedirects: 5,
  };
  const audit = (outcome: string, detail: Record<string, unknown>) =>
    options.audit({
      userId: options.userId,
      actor: `cell:${options.userId}`,
      action: `egress.${outcome}`,
      detail: { url: request.url.slice(0, 2000), ...detail },
    });
  try {
    const page = await fetchPage(request.url, policy, limits, signal);
    audit("fetched", { status: page.status, bytes: page.body.length, final_url: page.url });
    cell.send({
      type: "FetchResult",
      reply_to: request.msg_id,
      url: page.url,
      status: page.status,
      content_type: page.contentType,
      body_base64: page.body.toString("base64"),
      truncated: page.truncated,
    });
  } catch (error) {
    // The inmate turns a `forbidden` answer into the tool's refusal, with this message.
    const refused = error instanceof EgressRefusal;
    audit(refused ? "refused" : "failed", { reason: (error as Error).message });
    refuse(cell, request, refused ? "forbidden" : "internal", (error as Error).message);
  }
}
