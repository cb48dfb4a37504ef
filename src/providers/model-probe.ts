import { causeText } from "./http-failure.js";
import type { Provider, ProviderFailure } from "./stream-event.js";

/** A model server people run on their own machine, on the port it listens on out of the box. */
export interface LocalModelServer {
  name: string;
  port: number;
}

export const LOCAL_MODEL_SERVERS: readonly LocalModelServer[] = [
  { name: "Ollama", port: 11434 },
  { name: "vLLM", port: 8000 },
  { name: "llama.cpp", port: 8080 },
  { name: "LM Studio", port: 1234 },
];

export type ModelListing = { ok: true; models: string[] } | { ok: false; reason: string };

/**
 * The models an OpenAI-compatible server lists at GET <base>/models, or why it could not be asked (no answer
 * within `timeoutMs`, a refused key, a body that is not a model list). Never throws.
 */
export async function listModels(
  baseUrl: string,
  options: { apiKey?: string; timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<ModelListing> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  const answer = await getJson(url, options);
  if (!answer.ok) return answer;
  const data = (answer.body as { data?: unknown }).data;
  if (!Array.isArray(data)) return { ok: false, reason: `${url} answered without a "data" list of models` };
  const models = data
    .map((m) => (typeof m === "object" && m !== null ? (m as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === "string" && id !== "");
  return { ok: true, models };
}

/**
 * The model servers answering on this machine's usual ports, asked all at once with a short timeout, with the
 * models each lists. Ollama older than its OpenAI-compatible /v1/models is recognised by /api/tags.
 */
export async function probeLocalModelServers(
  options: {
    host?: string;
    timeoutMs?: number;
    servers?: readonly LocalModelServer[];
    fetch?: typeof fetch;
  } = {},
): Promise<Array<{ name: string; baseUrl: string; models: string[] }>> {
  const host = options.host ?? "127.0.0.1";
  const timeoutMs = options.timeoutMs ?? 700;
  const found = await Promise.all(
    (options.servers ?? LOCAL_MODEL_SERVERS).map(async (server) => {
      const baseUrl = `http://${host}:${server.port}/v1`;
      const listing = await listModels(baseUrl, {
        timeoutMs,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      if (listing.ok) return { name: server.name, baseUrl, models: listing.models };
      if (server.name !== "Ollama") return undefined;
      const tags = await getJson(`http://${host}:${server.port}/api/tags`, { timeoutMs, ...options });
      const models = tags.ok ? (tags.body as { models?: Array<{ name?: unknown }> }).models : undefined;
      return Array.isArray(models)
        ? { name: server.name, baseUrl, models: models.map((m) => String(m.name ?? "")).filter(Boolean) }
        : undefined;
    }),
  );
  return found.filter((f) => f !== undefined);
}

export type ModelCallCheck = { ok: true; reply: string } | { ok: false; failure: ProviderFailure };

/**
 * One real call: a one-token answer from `model`, which proves the server, the key and the model together. The
 * failure is the provider layer's (missing_key, auth_failed, unknown_model…) with its message.
 */
export async function checkModelCall(
  provider: Provider,
  model: string,
  signal?: AbortSignal,
): Promise<ModelCallCheck> {
  let reply = "";
  for await (const event of provider.stream(
    { model, messages: [{ role: "user", content: "Reply with the single word: ready" }], maxTokens: 1 },
    signal ? { signal } : {},
  )) {
    if (event.type === "text_delta") reply += event.delta;
    if (event.type === "error") return { ok: false, failure: event.error };
  }
  return { ok: true, reply };
}

async function getJson(
  url: string,
  options: { apiKey?: string; timeoutMs?: number; fetch?: typeof fetch },
): Promise<{ ok: true; body: object } | { ok: false; reason: string }> {
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, {
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    if (response.status === 401 || response.status === 403)
      return { ok: false, reason: `${url} refused the key (HTTP ${response.status})` };
    if (!response.ok) return { ok: false, reason: `${url} answered HTTP ${response.status}` };
    const body: unknown = await response.json().catch(() => undefined);
    return typeof body === "object" && body !== null
      ? { ok: true, body }
      : { ok: false, reason: `${url} did not answer JSON` };
  } catch (cause) {
    const timedOut = (cause as Error).name === "TimeoutError";
    return {
      ok: false,
      reason: timedOut
        ? `${url} did not answer within ${options.timeoutMs ?? 10_000} ms`
        : `${url} cannot be reached: ${causeText(cause)}`,
    };
  }
}
