import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { createArrivals } from "./arrivals.js";

/** One Bot API call the fake received: `/bot<token>/<method>` and its JSON body. */
export interface BotApiCall {
  token: string;
  method: string;
  body: Record<string, unknown>;
  /** Milliseconds since the epoch, for tests that check how long a retry waited. */
  at: number;
}

/** A scripted failure for the next call: Telegram's error shape, with `retry_after` for 429. */
export interface BotApiFailure {
  status: number;
  description: string;
  retryAfterSeconds?: number;
}

export interface TelegramServer {
  /** The Bot API base URL, `http://127.0.0.1:<port>` (the client appends `/bot<token>/<method>`). */
  readonly url: string;
  readonly calls: BotApiCall[];
  /** The sendMessage calls, as `{ chatId, text }`, accepted or not. */
  sentMessages(): Array<{ chatId: unknown; text: unknown }>;
  /** Answers the next calls with these failures, in order, then succeeds again. */
  failNext(...failures: BotApiFailure[]): void;
  /** Resolves once `count` sendMessage calls have arrived (rejects after `timeoutMs`). */
  waitForMessages(count: number, timeoutMs?: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a fake Telegram Bot API on 127.0.0.1 with a free port; every method answers `ok: true`. */
export async function startTelegramServer(): Promise<TelegramServer> {
  const calls: BotApiCall[] = [];
  const failures: BotApiFailure[] = [];
  const arrivals = createArrivals();
  let messageId = 0;

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec((req.url ?? "").split("?")[0] ?? "");
      if (!match?.[1] || !match[2])
        return answer(res, 404, { ok: false, error_code: 404, description: "Not Found" });
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        return answer(res, 400, { ok: false, error_code: 400, description: "Bad Request: body is not JSON" });
      }
      calls.push({ token: match[1], method: match[2], body, at: Date.now() });
      arrivals.arrived();
      const failure = failures.shift();
      if (failure) {
        const parameters =
          failure.retryAfterSeconds === undefined
            ? {}
            : { parameters: { retry_after: failure.retryAfterSeconds } };
        return answer(res, failure.status, {
          ok: false,
          error_code: failure.status,
          description: failure.description,
          ...parameters,
        });
      }
      const result =
        match[2] === "sendMessage"
          ? {
              message_id: ++messageId,
              date: Math.floor(Date.now() / 1000),
              chat: { id: body.chat_id },
              text: body.text,
            }
          : match[2] === "getMe"
            ? { id: 42, is_bot: true, first_name: "IronClaw", username: "ironclaw_test_bot" }
            : true;
      answer(res, 200, { ok: true, result });
    });
  });

  const sentMessages = () =>
    calls
      .filter((c) => c.method === "sendMessage")
      .map((c) => ({ chatId: c.body.chat_id, text: c.body.text }));

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    sentMessages,
    failNext: (...f) => {
      failures.push(...f);
    },
    waitForMessages: (count, timeoutMs) =>
      arrivals.waitFor(() => sentMessages().length, count, "sendMessage calls", timeoutMs),
    reset: () => {
      calls.length = 0;
      failures.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The warden's `[integrations]` for a bot named "family" whose Bot API is this test server; the rest default. */
export function telegramIntegration(bot: TelegramServer, secret: string) {
  return {
    ...ironclawdConfigSchema.parse({}).integrations,
    telegram: {
      enabled: true,
      token: "123456:TEST",
      secret_token: secret,
      api_base_url: bot.url,
      bot: "family",
    },
  };
}
