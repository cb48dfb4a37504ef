import type { TurnFailure } from "../contracts/index.js";
import type { ProviderFailure } from "../providers/index.js";

/**
 * What a user is told when a model call fails, made by the warden from the failure's code: what happened in
 * words and what to do. The provider's internals (its base URL, the socket's errno, the HTTP status, its
 * error body) are for the operator: the model proxy audits them and never forwards them to a cell, whose
 * turns end up in the user's chat, transcript and channels.
 */
export function userModelFailure(failure: ProviderFailure, model: string): ProviderFailure {
  return {
    code: failure.code,
    retryable: failure.retryable,
    ...(failure.status === undefined ? {} : { status: failure.status }),
    message: describeModelFailure(failure, model),
  };
}

const TRY_AGAIN = "Try again in a moment.";

function describeModelFailure(failure: ProviderFailure, model: string): string {
  switch (failure.code) {
    case "network_error":
      return `the model is unavailable right now: its server cannot be reached. ${TRY_AGAIN}`;
    case "rate_limited":
      return `the model is busy right now (its provider's rate limit). ${TRY_AGAIN}`;
    case "timeout":
      return `the model stopped answering: it sent nothing for too long. ${TRY_AGAIN}`;
    case "truncated_stream":
    case "upstream_error":
      return `the model stopped answering mid-reply. ${TRY_AGAIN}`;
    case "malformed_stream":
      return `the model's reply could not be read. ${TRY_AGAIN} If it keeps happening, the operator should check the provider.`;
    case "auth_failed":
      return "the model's provider refused this host's API key: the operator must check it ([providers] in ironclawd.toml).";
    case "unknown_model":
      return `the model's provider does not offer "${model}": choose another model in the agent's profile.`;
    case "http_error": {
      if (failure.status === undefined || failure.status >= 500 || failure.status === 408)
        return `the model is unavailable right now. ${TRY_AGAIN}`;
      const detail = safeDetail(failure.detail);
      return detail ? `the model refused the request: ${detail}` : "the model refused the request.";
    }
    // The warden's own words (a missing key, a refusal, a stop) already say what to do and hold no internals.
    case "missing_key":
    case "refused":
    case "aborted":
      return failure.message;
  }
}

/** How the front doors sort a failed turn (the OpenAI endpoint's status), by the failure's code. */
export function turnFailureOf(failure: Pick<ProviderFailure, "code" | "status">): TurnFailure {
  switch (failure.code) {
    case "network_error":
    case "rate_limited":
    case "timeout":
      return "model_unavailable";
    case "truncated_stream":
    case "upstream_error":
    case "malformed_stream":
      return "model_interrupted";
    case "http_error":
      return failure.status === undefined || failure.status >= 500 || failure.status === 408
        ? "model_unavailable"
        : "model_refused";
    case "auth_failed":
    case "unknown_model":
    case "missing_key":
      return "model_setup";
    case "refused":
      return "refused";
    case "aborted":
      return "aborted";
  }
}

const MAX_SHOWN = 300;

/**
 * A provider's explanation of a refused request ("maximum context length is 8192 tokens") helps the user; any
 * address in it (an endpoint, a host:port) and anything that looks like a key (some echo part of it) is the
 * operator's, so it is cut out.
 */
function safeDetail(detail: string | undefined): string {
  if (!detail) return "";
  const cleaned = detail
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "(address withheld)")
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, "(address withheld)")
    .replace(/\[[0-9a-f:]+\](?::\d+)?/gi, "(address withheld)")
    .replace(/\b(?:sk|pk|rk|ick)[-_][\w*.-]+/gi, "(key withheld)")
    .replace(/\b[\w-]{32,}/g, "(key withheld)")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned.length > MAX_SHOWN ? `${cleaned.slice(0, MAX_SHOWN)}…` : cleaned;
}
