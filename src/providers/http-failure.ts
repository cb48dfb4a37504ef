import type { ProviderFailure } from "./stream-event.js";

const MAX_DETAIL = 500;

/** The server's own explanation from an error body: OpenAI-style `{ error: { message } }`, or the raw text. */
export function errorDetail(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      const error = (parsed as { error: unknown }).error;
      if (typeof error === "string") return clip(error);
      if (typeof error === "object" && error !== null && "message" in error) {
        return clip(String((error as { message: unknown }).message));
      }
    }
  } catch {
    // Not JSON: fall through to the text itself.
  }
  return clip(body.trim());
}

// Servers disagree on how to say it: OpenAI 404 "The model `x` does not exist", Ollama 404 "model 'x' not
// found", OpenRouter 400 "x is not a valid model ID", vLLM 404 "The model `x` does not exist.".
const UNKNOWN_MODEL =
  /model\b.*(not found|does not exist|unknown|no such)|(unknown|invalid|not a valid) model/i;

/**
 * What a failed outbound call means, whoever made it (model chat, embeddings, Bot API): its kind, whether the
 * same request could succeed if sent again, and the server's own words. Callers word the message for their user.
 */
export interface HttpFailureClass {
  kind: "auth_failed" | "unknown_model" | "rate_limited" | "http_error" | "network_error";
  retryable: boolean;
  /** Absent for a request that got no answer. */
  status?: number;
  /** The server's explanation (or the network error's text), clipped; empty when there is none. */
  detail: string;
}

/** 429 and 408 say "later"; a 5xx may be a passing fault. Anything else will be refused again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599);
}

/** The kinds a server's answer can have; `network_error` is for requests that got none. */
export type RefusalKind = Exclude<HttpFailureClass["kind"], "network_error">;

/** Classifies a request the server refused, from its status and body. */
export function classifyHttpFailure(
  status: number,
  body: string,
): HttpFailureClass & { kind: RefusalKind; status: number } {
  const detail = errorDetail(body);
  const base = { status, detail };
  if (status === 401 || status === 403) return { kind: "auth_failed", retryable: false, ...base };
  if ((status === 404 || status === 400) && UNKNOWN_MODEL.test(detail)) {
    return { kind: "unknown_model", retryable: false, ...base };
  }
  if (status === 429) return { kind: "rate_limited", retryable: true, ...base };
  return { kind: "http_error", retryable: isRetryableStatus(status), ...base };
}

/**
 * Classifies a request that got no answer (refused connection, reset, DNS, timeout). Retryable for a request
 * that is safe to send twice; a caller whose request is not (a chat message delivered once) decides otherwise.
 */
export function classifyNetworkFailure(cause: unknown): HttpFailureClass {
  return { kind: "network_error", retryable: true, detail: clip(causeText(cause)) };
}

/** An error's message with its cause's, which is where Node's fetch puts the reason (ECONNREFUSED…). */
export function causeText(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : "";
    return `${cause.message}${inner}`;
  }
  return String(cause);
}

/** A refused model call as the provider's failure; `model` names the model so the user sees what to fix. */
export function httpFailure(status: number, body: string, model: string, provider: string): ProviderFailure {
  const { kind, retryable, detail } = classifyHttpFailure(status, body);
  const suffix = detail === "" ? "" : `: ${detail}`;
  const own = detail === "" ? {} : { detail };
  const messages: Record<RefusalKind, string> = {
    auth_failed: `${provider} refused the API key (HTTP ${status})${suffix}`,
    unknown_model: `${provider} does not know model "${model}" (HTTP ${status})${suffix}`,
    rate_limited: `${provider} rate limit (HTTP 429)${suffix}`,
    http_error: `${provider} answered HTTP ${status}${suffix}`,
  };
  return { code: kind, status, ...own, retryable, message: messages[kind] };
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}
