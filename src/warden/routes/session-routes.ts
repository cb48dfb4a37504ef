import { z } from "zod";
import {
  chatAnswerSchema,
  chatBodySchema,
  deletedAnswerSchema,
  sessionCreateBodySchema,
  sessionDetailSchema,
  sessionPatchBodySchema,
  sessionSchema,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import type { ChatEvent } from "../chat-events.js";
import { defineRoute } from "../http/api-route.js";
import { openEventStream } from "../http/sse.js";
import { checkMessageSize } from "../message-limit.js";
import type { WardenContext } from "../warden-context.js";

const idParams = z.strictObject({ id: z.string().min(1) });

/** Conversations (sessions) and chat turns over plain HTTP: one JSON answer, or an SSE stream of chat events. */
export function sessionRoutes(ctx: Pick<WardenContext, "conversations" | "chat" | "config">) {
  const { conversations, chat } = ctx;
  const own = (userId: string, id: string) => {
    const conversation = conversations.get(userId, id);
    if (!conversation) throw new NotFoundError("session", id);
    return conversation;
  };

  const chatRoute = (url: string, sessionFromParams: boolean) =>
    defineRoute({
      method: "POST",
      url,
      summary: sessionFromParams
        ? "Send a message in a session; JSON answer, or SSE chat events with stream: true or Accept: text/event-stream"
        : "Send a message (in session_id, or a new session); JSON answer, or SSE chat events with stream: true",
      tag: "chat",
      access: "user",
      ...(sessionFromParams ? { params: idParams } : {}),
      body: chatBodySchema,
      response: chatAnswerSchema,
      async handler({ params, body, auth, request, reply }) {
        const sessionId = sessionFromParams ? (params as { id: string }).id : body.session_id;
        if (sessionId) own(auth.userId, sessionId);
        checkMessageSize(body.text, "text", ctx.config.limits.max_message_bytes);
        const streamed = body.stream ?? (request.headers.accept ?? "").includes("text/event-stream");
        const abort = new AbortController();
        const turn = chat.turn({
          userId: auth.userId,
          text: body.text,
          channel: "api",
          signal: abort.signal,
          ...(sessionId ? { sessionId } : {}),
          ...(body.agent ? { agent: body.agent } : {}),
        });
        if (streamed) {
          const stream = openEventStream(request, reply);
          stream.signal.addEventListener("abort", () => abort.abort());
          for await (const event of turn) stream.write(event.type, event);
          stream.end();
          return undefined;
        }
        request.raw.on("close", () => {
          if (!reply.sent) abort.abort();
        });
        return collect(turn);
      },
    });

  return [
    defineRoute({
      method: "GET",
      url: "/api/sessions",
      summary: "The signed-in user's sessions, newest first",
      tag: "sessions",
      access: "user",
      response: z.array(sessionSchema),
      handler: async ({ auth }) => conversations.list(auth.userId).map(({ userId: _, ...s }) => s),
    }),
    defineRoute({
      method: "POST",
      url: "/api/sessions",
      summary: "Start a new, empty session",
      tag: "sessions",
      access: "user",
      body: sessionCreateBodySchema,
      response: sessionSchema,
      status: 201,
      handler: async ({ auth, body }) => {
        const { userId: _, ...s } = conversations.create(auth.userId, {
          channel: "api",
          ...(body.title ? { title: body.title } : {}),
          ...(body.agent ? { agent: body.agent } : {}),
        });
        return s;
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/sessions/:id",
      summary: "One session with everything said in it",
      tag: "sessions",
      access: "user",
      params: idParams,
      response: sessionDetailSchema,
      handler: async ({ auth, params }) => {
        const { userId: _, ...session } = own(auth.userId, params.id);
        return { session, entries: conversations.entries(params.id) };
      },
    }),
    defineRoute({
      method: "PATCH",
      url: "/api/sessions/:id",
      summary: "Rename a session",
      tag: "sessions",
      access: "user",
      params: idParams,
      body: sessionPatchBodySchema,
      response: sessionSchema,
      handler: async ({ auth, params, body }) => {
        own(auth.userId, params.id);
        conversations.rename(auth.userId, params.id, body.title);
        const { userId: _, ...s } = own(auth.userId, params.id);
        return s;
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/sessions/:id",
      summary: "Delete a session's record in the warden (the agent's memory of it stays in the brain)",
      tag: "sessions",
      access: "user",
      params: idParams,
      response: deletedAnswerSchema,
      handler: async ({ auth, params }) => {
        own(auth.userId, params.id);
        conversations.remove(auth.userId, params.id);
        return { deleted: params.id };
      },
    }),
    chatRoute("/api/chat", false),
    chatRoute("/api/sessions/:id/messages", true),
  ];
}

/** A whole turn as one JSON answer. */
async function collect(turn: AsyncIterable<ChatEvent>): Promise<z.output<typeof chatAnswerSchema>> {
  let sessionId = "";
  const tools: { tool: string; isError: boolean; content: string }[] = [];
  for await (const event of turn) {
    if (event.type === "session") sessionId = event.sessionId;
    else if (event.type === "tool")
      tools.push({ tool: event.tool, isError: event.isError, content: event.content });
    else if (event.type === "done") {
      return {
        session_id: sessionId,
        text: event.text,
        tools,
        usage: event.usage,
        stop_reason: event.stopReason,
        ...(event.error ? { error: event.error } : {}),
        ...(event.failure ? { failure: event.failure } : {}),
      };
    }
  }
  return {
    session_id: sessionId,
    text: "",
    tools,
    usage: { input_tokens: 0, output_tokens: 0 },
    stop_reason: "error",
    error: "the turn ended without an answer",
  };
}
