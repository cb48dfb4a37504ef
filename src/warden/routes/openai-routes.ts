import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import {
  type OpenAiChatRequest,
  openAiChatRequestSchema,
  type openAiMessageSchema,
} from "../../contracts/index.js";
import { newId } from "../../core/index.js";
import {
  HttpError,
  openAiError,
  RouteRegistry,
  routeDefiner,
  sendOpenAiError,
  toHttpError,
} from "../../http/index.js";
import { findBudgetRefusal } from "../budget/index.js";
import { crashLoopMessage } from "../cell-trouble.js";
import type { ChatEvent } from "../chat-events.js";
import { type Auth, notSignedIn, requireAccess } from "../http/auth.js";
import { openEventStream } from "../http/sse.js";
import { wardenErrors } from "../http/warden-errors.js";
import { checkMessageSize } from "../message-limit.js";
import type { WardenContext } from "../warden-context.js";

const SESSION_HEADER = "x-ironclaw-session";
const defineRoute = routeDefiner<Auth>();

/**
 * The OpenAI-compatible endpoint: any OpenAI client talks to the user's jailed agent. `model` names an agent
 * profile of the user's brain. Calls are stateless as OpenAI's are (the client sends the conversation), unless
 * the client passes the X-IronClaw-Session header every answer carries, which continues a stored session.
 * Errors are OpenAI's shape, so SDKs raise their usual exceptions.
 */
export async function openAiRoutes(
  app: FastifyInstance,
  ctx: Pick<WardenContext, "config" | "audit" | "authenticator" | "cells" | "conversations" | "chat">,
): Promise<void> {
  const translate = wardenErrors({
    bodyLimit: ctx.config.server.body_limit,
    messageLimit: ctx.config.limits.max_message_bytes,
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = toHttpError(error, [translate]);
    if (answer.status >= 500) request.log.error({ err: error }, "openai endpoint failed");
    return sendOpenAiError(reply, answer);
  });

  // Why a cell could not start names host paths and programs: the operator's, in the audit (a host entry, so
  // the user's own audit view leaves it out).
  const cellUnavailable = (userId: string) => (error: Error) => {
    ctx.audit.record({
      actor: "warden",
      action: "cell.unavailable",
      detail: { user: userId, reason: error.message },
    });
    throw new HttpError(
      "unavailable",
      crashLoopMessage(error) ?? "your agent could not start right now. Try again in a moment.",
      { reason: "cell_unavailable" },
    );
  };

  // OpenAI clients always send a key: say which header is missing rather than how to sign in to the UI.
  const routes = new RouteRegistry<Auth>(app, {
    async authorize(request, access) {
      if (!request.headers.authorization)
        throw notSignedIn("missing Authorization: Bearer <IronClaw user token>");
      return requireAccess(ctx.authenticator, request, access);
    },
    // OpenAI's answers are bare objects, not the envelope.
    answer: (data) => data,
  });

  routes.add(
    defineRoute({
      method: "GET",
      url: "/v1/models",
      summary: "The user's agent profiles as OpenAI models",
      tag: "openai",
      access: "user",
      async handler({ auth }) {
        const ready = await ctx.cells.describe(auth.userId).catch(cellUnavailable(auth.userId));
        return {
          object: "list",
          data: ready.agents.map((a) => ({ id: a.name, object: "model", created: 0, owned_by: "ironclaw" })),
        };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/v1/chat/completions",
      summary: "OpenAI-compatible chat completions (streaming and not); model = an agent profile",
      tag: "openai",
      access: "user",
      // The body is checked in the handler: OpenAI names a bad field as `messages.0.content` in `param`.
      handler: ({ auth, request, reply }) => chatCompletion(auth, request, reply),
    }),
  );

  async function chatCompletion(auth: Auth, request: FastifyRequest, reply: FastifyReply) {
    const parsed = openAiChatRequestSchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = issue?.path.join(".") ?? null;
      throw new HttpError("validation_failed", `${param || "body"}: ${issue?.message ?? "invalid"}`, {
        reason: "invalid_value",
        ...(param === null ? {} : { field: param }),
      });
    }
    const body = parsed.data;
    for (const [i, m] of body.messages.entries())
      checkMessageSize(textOf(m), `messages.${i}.content`, ctx.config.limits.max_message_bytes);
    const ready = await ctx.cells.describe(auth.userId).catch(cellUnavailable(auth.userId));
    const agent = ready.agents.find((a) => a.name === body.model);
    if (!agent) {
      throw new HttpError(
        "not_found",
        `The model \`${body.model}\` does not exist: models are this user's agent profiles (${ready.agents.map((a) => a.name).join(", ")})`,
        { reason: "model_not_found", field: "model" },
      );
    }
    const { prompt, history } = promptOf(body);
    const sessionHeader = request.headers[SESSION_HEADER];
    const sessionId = typeof sessionHeader === "string" && sessionHeader ? sessionHeader : undefined;
    if (sessionId && !ctx.conversations.get(auth.userId, sessionId))
      throw new HttpError("not_found", `no session ${sessionId} for this user`, {
        reason: "session_not_found",
      });
    const abort = new AbortController();
    const turn = ctx.chat.turn({
      userId: auth.userId,
      text: prompt,
      agent: agent.name,
      channel: "openai",
      signal: abort.signal,
      ...(sessionId ? { sessionId } : { history }),
    });
    const id = `chatcmpl-${newId()}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream)
      return streamTurn(turn, {
        id,
        created,
        model: agent.name,
        includeUsage: body.stream_options?.include_usage === true,
        request,
        reply,
        abort,
      });
    request.raw.on("close", () => {
      if (!reply.sent) abort.abort();
    });
    let session = "";
    for await (const event of turn) {
      if (event.type === "session") session = event.sessionId;
      if (event.type !== "done") continue;
      reply.header(SESSION_HEADER, session);
      if (failed(event)) throw turnError(event);
      return {
        id,
        object: "chat.completion",
        created,
        model: agent.name,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: event.text, refusal: null },
            finish_reason: finishReason(event),
            logprobs: null,
          },
        ],
        usage: usageOf(event),
      };
    }
    throw new HttpError("bad_gateway", "the turn ended without an answer", { type: "agent_error" });
  }
}

type Done = Extract<ChatEvent, { type: "done" }>;

/** A turn that failed, even after part of a reply: a cut-off answer must not pass for a finished one. */
function failed(event: Done): event is Done & { error: string } {
  return event.error !== undefined && (event.text === "" || event.stopReason === "error");
}

/**
 * A failed turn as OpenAI's error shape, sorted by the failure's kind (never by its words): a spend cap's
 * refusal is the client's to handle (429, like a provider's own quota: the SDKs raise RateLimitError with the
 * message); a model or cell that cannot answer now is 503, a model that broke off or refused is 502. The
 * message is the sentence the chat shows, without the provider's internals.
 */
function turnError(event: Done & { error: string }): HttpError {
  const { error } = event;
  const budget = findBudgetRefusal(error);
  if (budget?.kind === "exceeded")
    return new HttpError("rate_limited", budget.message, {
      type: "budget_exceeded",
      reason: "budget_exceeded",
    });
  if (budget)
    return new HttpError("forbidden", budget.message, { type: "budget_refused", reason: "unpriced_model" });
  switch (event.failure) {
    case "model_unavailable":
    case "cell_unavailable":
      return new HttpError("unavailable", error, { reason: event.failure });
    case "model_interrupted":
    case "model_refused":
    case "model_setup":
      return new HttpError("bad_gateway", error, { reason: event.failure });
    default:
      return new HttpError("bad_gateway", error, {
        type: "agent_error",
        reason: event.failure ?? event.stopReason,
      });
  }
}

function finishReason(event: Done): "stop" | "length" {
  return event.stopReason === "length" || event.stopReason === "max_steps" ? "length" : "stop";
}

function usageOf(event: Done) {
  const { input_tokens: prompt, output_tokens: completion } = event.usage;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

async function streamTurn(
  turn: AsyncIterable<ChatEvent>,
  o: {
    id: string;
    created: number;
    model: string;
    includeUsage: boolean;
    request: Parameters<typeof openEventStream>[0];
    reply: FastifyReply;
    abort: AbortController;
  },
): Promise<void> {
  // The stream opens with the first event worth sending, so a turn refused before any text (a spend cap) can
  // still be answered with its HTTP status instead of a 200 stream carrying an error.
  let stream: ReturnType<typeof openEventStream> | undefined;
  const open = () => {
    if (!stream) {
      stream = openEventStream(o.request, o.reply);
      stream.signal.addEventListener("abort", () => o.abort.abort());
    }
    return stream;
  };
  o.reply.raw.on("close", () => {
    if (!stream && !o.reply.raw.writableFinished) o.abort.abort();
  });
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: o.id,
    object: "chat.completion.chunk",
    created: o.created,
    model: o.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  let first = true;
  for await (const event of turn) {
    if (event.type === "delta") {
      open().write(
        undefined,
        chunk(first ? { role: "assistant", content: event.text } : { content: event.text }, null),
      );
      first = false;
    } else if (event.type === "done") {
      if (failed(event)) {
        const failure = turnError(event);
        if (!stream) throw failure;
        // The OpenAI SDKs raise an APIError for an `error` object on the stream.
        stream.write(undefined, openAiError(failure));
      } else {
        const out = open();
        if (first) out.write(undefined, chunk({ role: "assistant", content: "" }, null));
        out.write(undefined, chunk({}, finishReason(event)));
        if (o.includeUsage)
          out.write(undefined, {
            id: o.id,
            object: "chat.completion.chunk",
            created: o.created,
            model: o.model,
            choices: [],
            usage: usageOf(event),
          });
      }
    }
  }
  const out = open();
  out.write(undefined, "[DONE]");
  out.end();
}

type OpenAiMessage = z.output<typeof openAiMessageSchema>;

function textOf(message: OpenAiMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

/**
 * The last user message is the turn's prompt; earlier user and assistant messages are the history the agent
 * is given (when the session is new). The client's system messages are passed on as context in the prompt:
 * the agent's own soul and instructions stay its system prompt.
 */
function promptOf(body: OpenAiChatRequest): {
  prompt: string;
  history: { role: "user" | "assistant"; content: string }[];
} {
  const messages = body.messages;
  const last = messages[messages.length - 1];
  if (last?.role !== "user")
    throw new HttpError("validation_failed", "messages: the last message must have role user", {
      reason: "invalid_value",
      field: "messages",
    });
  const prompt = textOf(last);
  if (prompt.trim() === "")
    throw new HttpError("validation_failed", `messages.${messages.length - 1}.content: must contain text`, {
      reason: "invalid_value",
      field: "messages",
    });
  const system = messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map(textOf)
    .filter((t) => t.trim() !== "");
  const history = messages
    .slice(0, -1)
    .filter(
      (m): m is OpenAiMessage & { role: "user" | "assistant" } => m.role === "user" || m.role === "assistant",
    )
    .map((m) => ({ role: m.role, content: textOf(m) }))
    .filter((m) => m.content !== "");
  return {
    prompt: system.length ? `${system.join("\n\n")}\n\n---\n\n${prompt}` : prompt,
    history,
  };
}
