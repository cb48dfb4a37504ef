import type { WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RawData } from "ws";
import { wsClientMessageSchema } from "../../contracts/index.js";
import { issuesFromZod } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { type Auth, requireAccess } from "../http/auth.js";
import { SignInWatch } from "../http/sign-in-watch.js";
import { checkMessageSize, MessageTooLargeError } from "../message-limit.js";
import type { WardenContext } from "../warden-context.js";

const authOf = new WeakMap<FastifyRequest, Auth>();
/** Application close code (4000-4999) for an ended sign-in; the UI then asks /api/me and shows the sign-in. */
export const SIGNED_OUT_CLOSE = 4401;

/**
 * GET /api/ws: chat over a WebSocket. The upgrade is refused (403) when the request carries an Origin that is
 * not the UI's own: a browser always sends one, so a foreign page can never drive a user's agent with the
 * user's cookie (the class of bug of CVE-2026-25253). Clients without an Origin (not browsers) must send a
 * bearer token. Client messages: {type:"chat", id, text, session_id?, agent?}, {type:"cancel", id},
 * {type:"ping"}; every chat event comes back with the chat's id. A socket lives only as long as its sign-in:
 * each message re-checks it, and rotating the token, removing the user or signing out everywhere closes the
 * socket (code 4401) at once, or within a second when another process (the CLI) did it.
 */
export async function wsRoute(
  app: FastifyInstance,
  ctx: Pick<
    WardenContext,
    "db" | "users" | "authenticator" | "audit" | "logger" | "config" | "conversations" | "chat"
  >,
): Promise<void> {
  const watch = new SignInWatch({ db: ctx.db, users: ctx.users });
  app.addHook("onClose", async () => watch.close());
  app.addHook("preValidation", async (request) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !ctx.authenticator.originAllowed(origin)) {
      ctx.audit.record({ actor: `ip:${request.ip}`, action: "ws.refused_origin", detail: { origin } });
      throw new HttpError(
        "forbidden",
        `WebSocket connections from ${origin} are not allowed: only the UI's own origin may connect`,
      );
    }
    const auth = await requireAccess(ctx.authenticator, request, "user");
    if (origin === undefined && auth.via === "cookie")
      throw new HttpError(
        "forbidden",
        "a WebSocket signed in by cookie must come from the UI (an Origin header)",
      );
    authOf.set(request, auth);
  });

  app.get("/api/ws", { websocket: true }, (socket: WebSocket, request) => {
    const auth = authOf.get(request);
    if (!auth) {
      socket.close(1008, "not signed in");
      return;
    }
    const running = new Map<string, AbortController>();
    const send = (message: unknown) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    const stillSignedIn = () => ctx.authenticator.stillSignedIn(request, auth).catch(() => false);
    const end = () => socket.close(SIGNED_OUT_CLOSE, "signed out: the sign-in of this connection has ended");
    const unwatch = watch.add({ userId: auth.userId, stillSignedIn, end });
    // Messages are handled in arrival order, each only after its sender's sign-in is checked again.
    let inbox = Promise.resolve();
    socket.on("message", (data, isBinary) => {
      inbox = inbox
        .then(async () => {
          if (socket.readyState !== socket.OPEN) return;
          if (await stillSignedIn()) handle(data, isBinary);
          else end();
        })
        // A failure must neither stop the messages behind it nor become an unhandled rejection.
        .catch((err: unknown) => {
          ctx.logger.error({ err, userId: auth.userId }, "WebSocket message failed");
          send({ type: "error", code: "internal", message: "this message could not be handled" });
        });
    });
    const handle = (data: RawData, isBinary: boolean) => {
      const text = isBinary ? "" : data.toString();
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        send({ type: "error", code: "bad_request", message: "each message must be one JSON object" });
        return;
      }
      const parsed = wsClientMessageSchema.safeParse(raw);
      if (!parsed.success) {
        const [issue] = issuesFromZod(parsed.error);
        send({
          type: "error",
          code: "validation_failed",
          message: issue ? `${issue.path}: ${issue.message}` : "invalid message",
        });
        return;
      }
      const message = parsed.data;
      if (message.type === "ping") return send({ type: "pong" });
      if (message.type === "cancel") {
        running.get(message.id)?.abort();
        return;
      }
      try {
        checkMessageSize(message.text, "text", ctx.config.limits.max_message_bytes);
      } catch (error) {
        if (!(error instanceof MessageTooLargeError)) throw error;
        send({ type: "error", id: message.id, code: error.code, message: error.message });
        return;
      }
      if (running.has(message.id)) {
        send({
          type: "error",
          id: message.id,
          code: "conflict",
          message: `a chat with id ${message.id} is already running`,
        });
        return;
      }
      if (message.session_id && !ctx.conversations.get(auth.userId, message.session_id)) {
        send({
          type: "error",
          id: message.id,
          code: "not_found",
          message: `session ${message.session_id} not found`,
        });
        return;
      }
      const abort = new AbortController();
      running.set(message.id, abort);
      void (async () => {
        try {
          for await (const event of ctx.chat.turn({
            userId: auth.userId,
            text: message.text,
            channel: "ws",
            signal: abort.signal,
            ...(message.session_id ? { sessionId: message.session_id } : {}),
            ...(message.agent ? { agent: message.agent } : {}),
          }))
            send({ ...event, id: message.id });
        } catch (error) {
          send({ type: "error", id: message.id, code: "internal", message: (error as Error).message });
        } finally {
          running.delete(message.id);
        }
      })();
    };
    socket.on("close", () => {
      unwatch();
      for (const abort of running.values()) abort.abort();
    });
  });
}
