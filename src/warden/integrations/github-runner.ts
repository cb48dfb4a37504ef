import { Octokit } from "@octokit/rest";
import type { GithubAction, IntegrationError } from "../../contracts/index.js";
import { GITHUB_ACTIONS } from "../../contracts/index.js";
import { EgressRefusal } from "../../egress/index.js";
import { githubActions } from "./github-actions.js";
import type { IntegrationRunner } from "./integration-runner.js";

/** The user secret the GitHub tools call GitHub with. */
export const GITHUB_TOKEN_SECRET = "GITHUB_TOKEN";

export interface GithubRunnerOptions {
  /** `[integrations.github] base_url`. */
  baseUrl: string;
  /** The user's GITHUB_TOKEN secret, or undefined when they have none. */
  token: (userId: string) => string | undefined;
  /** How the calls leave the warden: the egress module's guarded fetch. */
  fetch: typeof fetch;
  now?: () => number;
}

// Octokit reports deprecations and failed requests through its log; the runner reports every call itself.
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** GitHub over REST with @octokit/rest, as the user whose token it holds; no retries (see `failure`). */
export function createGithubRunner(options: GithubRunnerOptions): IntegrationRunner {
  const now = options.now ?? Date.now;
  return {
    name: "github",
    configured: (userId) => Boolean(options.token(userId)),
    async run(userId, action, args, signal) {
      const repo: Record<string, string> = typeof args.repo === "string" ? { repo: args.repo } : {};
      const token = options.token(userId);
      if (!token)
        return {
          ok: false,
          error: {
            code: "not_configured",
            message: `GitHub is not set up for you: add your token as the secret ${GITHUB_TOKEN_SECRET}`,
          },
          audit: { ...repo },
        };
      if (!isGithubAction(action))
        return {
          ok: false,
          error: { code: "invalid", message: `unknown action ${action}` },
          audit: { ...repo },
        };
      const octokit = new Octokit({
        auth: token,
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        userAgent: "ironclaw",
        log: quiet,
        request: { fetch: options.fetch, signal, redirect: "manual" },
      });
      try {
        // The frame's inbound check parsed the arguments with this action's schema before they came here.
        const run = githubActions[action] as (
          o: Octokit,
          a: unknown,
        ) => Promise<{ data: object; status: number }>;
        const result = await run(octokit, args);
        return {
          ok: true,
          data: result.data as Record<string, unknown>,
          audit: { ...repo, status: result.status },
        };
      } catch (error) {
        const { error: why, status } = failure(error, now());
        return { ok: false, error: why, audit: { ...repo, ...(status === undefined ? {} : { status }) } };
      }
    },
  };
}

function isGithubAction(action: string): action is GithubAction {
  return (GITHUB_ACTIONS as readonly string[]).includes(action);
}

interface HttpFailure {
  status: number;
  message: string;
  response?: { headers: Record<string, string | number | undefined>; data?: unknown };
  cause?: unknown;
}

/**
 * GitHub's refusal in the user's terms. A rate limit (403 or 429 with x-ratelimit-remaining 0, or a Retry-After)
 * says when calls are taken again and is not retried here: the agent reads when, and a person decides.
 */
export function failure(error: unknown, nowMs: number): { error: IntegrationError; status?: number } {
  const http = error as Partial<HttpFailure>;
  if (http.cause instanceof EgressRefusal) return { error: { code: "refused", message: http.cause.message } };
  if (error instanceof EgressRefusal) return { error: { code: "refused", message: error.message } };
  if (typeof http.status !== "number" || !http.response)
    return {
      error: { code: "upstream", message: `GitHub could not be reached: ${(error as Error).message}` },
    };
  const status = http.status;
  const headers = http.response.headers;
  const said = githubMessage(http.response.data) ?? `HTTP ${status}`;
  const retryAfter = retryAfterSeconds(headers, nowMs);
  const exhausted = String(headers["x-ratelimit-remaining"] ?? "") === "0";
  if ((status === 403 || status === 429) && (exhausted || retryAfter !== undefined)) {
    const wait = retryAfter ?? 60;
    return {
      status,
      error: {
        code: "rate_limited",
        message: `GitHub's rate limit for this token is used up (${said}); it takes calls again in ${wait} s`,
        retry_after_s: wait,
      },
    };
  }
  const code: IntegrationError["code"] =
    status === 401 || status === 403
      ? "forbidden"
      : status === 404 || status === 410
        ? "not_found"
        : status === 422 || status === 400
          ? "invalid"
          : "upstream";
  const hint =
    status === 401
      ? "GitHub did not accept the GITHUB_TOKEN secret (expired or revoked?)"
      : status === 404
        ? "not found, or the token may not see it"
        : said;
  return { status, error: { code, message: `${hint} (HTTP ${status})`.slice(0, 2000) } };
}

function githubMessage(data: unknown): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { message } = data as { message?: unknown };
  return typeof message === "string" ? message.slice(0, 500) : undefined;
}

/** Seconds until GitHub takes calls again: its Retry-After, else its x-ratelimit-reset (epoch seconds). */
function retryAfterSeconds(
  headers: Record<string, string | number | undefined>,
  nowMs: number,
): number | undefined {
  const after = Number(headers["retry-after"]);
  if (headers["retry-after"] !== undefined && Number.isFinite(after) && after >= 0) return Math.ceil(after);
  const reset = Number(headers["x-ratelimit-reset"]);
  if (headers["x-ratelimit-reset"] !== undefined && Number.isFinite(reset))
    return Math.max(0, Math.ceil(reset - nowMs / 1000));
  return undefined;
}
