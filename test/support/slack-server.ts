import { createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { createArrivals } from "./arrivals.js";

/** One Web API call the fake received: the method, its bearer token and its JSON body. */
export interface SlackApiCall {
  method: string;
  token: string;
  body: Record<string, unknown>;
  /** Milliseconds since the epoch, for tests that check how long a retry waited. */
  at: number;
}

/** A scripted failure for the next call: an HTTP status, Slack's `error`, and Retry-After for a 429. */
export interface SlackApiFailure {
  status: number;
  error: string;
  retryAfterSeconds?: number;
}

export interface SlackServer {
  /** The Web API base URL, `http://127.0.0.1:<port>/api` (the client appends `/<method>`). */
  readonly url: string;
  readonly calls: SlackApiCall[];
  /** The chat.postMessage calls, accepted or not. */
  posts(): Array<{ channel: unknown; text: unknown; thread_ts?: unknown }>;
  failNext(...failures: SlackApiFailure[]): void;
  /** Resolves once `count` chat.postMessage calls have arrived (rejects after `timeoutMs`). */
  waitForPosts(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fake Slack Web API on 127.0.0.1 with a free port; chat.postMessage answers `ok: true`. */
export async function startSlackServer(): Promise<SlackServer> {
  const calls: SlackApiCall[] = [];
  const failures: SlackApiFailure[] = [];
  const arrivals = createArrivals();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const method = /^\/api\/([\w.]+)$/.exec((req.url ?? "").split("?")[0] ?? "")?.[1];
      if (!method) return answer(res, 404, { ok: false, error: "unknown_method" });
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        return answer(res, 200, { ok: false, error: "invalid_json" });
      }
      calls.push({ method, token, body, at: Date.now() });
      arrivals.arrived();
      const failure = failures.shift();
      if (failure)
        return answer(
          res,
          failure.status,
          { ok: false, error: failure.error },
          failure.retryAfterSeconds === undefined ? {} : { "retry-after": String(failure.retryAfterSeconds) },
        );
      if (token !== "xoxb-test-token") return answer(res, 200, { ok: false, error: "invalid_auth" });
      answer(res, 200, { ok: true, channel: body.channel, ts: `${Date.now() / 1000}` });
    });
  });
  const posts = () =>
    calls
      .filter((c) => c.method === "chat.postMessage")
      .map((c) => ({
        channel: c.body.channel,
        text: c.body.text,
        ...(c.body.thread_ts === undefined ? {} : { thread_ts: c.body.thread_ts }),
      }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    calls,
    posts,
    failNext: (...f) => {
      failures.push(...f);
    },
    waitForPosts: (count, timeoutMs) =>
      arrivals.waitFor(() => posts().length, count, "chat.postMessage calls", timeoutMs),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export const SLACK_SIGNING_SECRET = "slack-signing-secret-for-tests";

/** The warden's `[integrations]` with a Slack app named "team" whose Web API is this fake; the rest default. */
export function slackIntegration(slack: SlackServer) {
  return {
    ...ironclawdConfigSchema.parse({}).integrations,
    slack: {
      enabled: true,
      bot_token: "xoxb-test-token",
      signing_secret: SLACK_SIGNING_SECRET,
      api_base_url: slack.url,
      bot: "team",
      slash_command: "/ironclaw",
    },
  };
}

/** Headers Slack sends with a body: its timestamp and v0 signature (of `at` seconds, now by default). */
export function slackSignature(
  body: string,
  secret = SLACK_SIGNING_SECRET,
  at = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex");
  return { "x-slack-request-timestamp": String(at), "x-slack-signature": `v0=${signature}` };
}
