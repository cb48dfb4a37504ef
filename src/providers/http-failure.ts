import { isRetryableStatus } from "./retry-policy.js";
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

/** Classifies a refused request; `model` names the model in messages so the user sees what to fix. */
export function httpFailure(status: number, body: string, model: string, provider: string): ProviderFailure {
  const detail = errorDetail(body);
  const suffix = detail === "" ? "" : `: ${detail}`;
  const own = detail === "" ? {} : { detail };
  if (status === 401 || status === 403) {
    return {
      code: "auth_failed",
      status,
      ...own,
      retryable: false,
      message: `${provider} refused the API key (HTTP ${status})${suffix}`,
    };
  }
  if ((status === 404 || status === 400) && UNKNOWN_MODEL.test(detail)) {
    return {
      code: "unknown_model",
      status,
      ...own,
      retryable: false,
      message: `${provider} does not know model "${model}" (HTTP ${status})${suffix}`,
    };
  }
  if (status === 429) {
    return {
      code: "rate_limited",
      status,
      ...own,
      retryable: true,
      message: `${provider} rate limit (HTTP 429)${suffix}`,
    };
  }
  return {
    code: "http_error",
    status,
    ...own,
    retryable: isRetryableStatus(status),
    message: `${provider} answered HTTP ${status}${suffix}`,
  };
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}
