import { z } from "zod";
import { InvalidInputError, IronclawError, issuesFromZod, normaliseVector } from "../core/index.js";
import { classifyHttpFailure, classifyNetworkFailure } from "./http-failure.js";
import {
  type AttemptResult,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  type RetryPolicy,
  withRetries,
} from "./retry-policy.js";

export interface OpenAiEmbedderOptions {
  /** The API root including its version, e.g. `https://openrouter.ai/api/v1` or `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Expected vector size; probed with one request when absent. */
  dimensions?: number;
  /** Send `dimensions` in the request (models such as text-embedding-3 can shorten their vectors). */
  requestDimensions?: boolean;
  /** Texts per request. */
  batchSize?: number;
  /** Retries after a 429, a 5xx or a network failure, with exponential backoff and jitter. */
  maxRetries?: number;
  retryBaseMs?: number;
  timeoutMs?: number;
}

/** An embeddings request that failed for good; says which endpoint, what status and what the server said. */
export class EmbeddingRequestError extends IronclawError {
  override readonly name = "EmbeddingRequestError";
  constructor(
    readonly url: string,
    readonly status: number | undefined,
    readonly attempts: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(
      "embedding_failed",
      `POST ${url}: ${message} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
      options,
    );
  }
}

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** Longest backoff between attempts; indexing runs in the background, so it may wait longer than a chat turn. */
const RETRY_CAP_MS = 30_000;

type Failure = { status?: number; message: string; cause?: unknown };

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server).
 * Vectors are normalised to unit length, since not every server does. It has the shape of memory's `Embedder`
 * without importing it (the two are on one floor): memory receives it through `createEmbedder`'s
 * `remoteEmbedder`, where the compiler checks that shape.
 */
export class OpenAiEmbedder {
  readonly id: string;
  private readonly url: string;

  private constructor(
    private readonly options: Required<Omit<OpenAiEmbedderOptions, "apiKey" | "dimensions">> & {
      apiKey?: string;
    },
    readonly model: string,
    readonly dimensions: number,
  ) {
    this.url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
    this.id = `openai-compatible@${new URL(options.baseUrl).host}`;
  }

  static async create(options: OpenAiEmbedderOptions): Promise<OpenAiEmbedder> {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch (cause) {
      throw new InvalidInputError("baseUrl", `${JSON.stringify(options.baseUrl)} is not a URL`, { cause });
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new InvalidInputError("baseUrl", "must be an http(s) URL");
    }
    if (options.model.trim() === "") throw new InvalidInputError("model", "must not be empty");
    const settings = {
      baseUrl: options.baseUrl,
      model: options.model,
      requestDimensions: options.requestDimensions ?? false,
      batchSize: positive("batchSize", options.batchSize ?? 64),
      maxRetries: Math.max(0, options.maxRetries ?? 4),
      retryBaseMs: Math.max(0, options.retryBaseMs ?? 500),
      timeoutMs: positive("timeoutMs", options.timeoutMs ?? 60_000),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    };
    if (options.dimensions !== undefined) {
      return new OpenAiEmbedder(settings, options.model, positive("dimensions", options.dimensions));
    }
    const probe = new OpenAiEmbedder(settings, options.model, 0);
    const [vector] = await probe.request(["dimension probe"], undefined);
    return new OpenAiEmbedder(settings, options.model, (vector as Float32Array).length);
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.options.batchSize), options.signal)));
    }
    return out;
  }

  private async request(texts: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const body: Record<string, unknown> = {
      model: this.model,
      // Most servers reject an empty string; a space embeds as "nothing" just as well.
      input: texts.map((t) => (t === "" ? " " : t)),
      encoding_format: "float",
    };
    if (this.options.requestDimensions && this.dimensions > 0) body.dimensions = this.dimensions;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: this.options.maxRetries,
      baseDelayMs: this.options.retryBaseMs,
      maxDelayMs: RETRY_CAP_MS,
    };
    const result = await withRetries(policy, () => this.attempt(JSON.stringify(body), headers, signal), {
      ...(signal ? { signal } : {}),
    });
    if (!result.ok) {
      const { status, message, cause } = result.failure;
      throw new EmbeddingRequestError(this.url, status, result.attempts, message, { cause });
    }
    return this.check(result.value, texts.length, result.attempts);
  }

  private async attempt(
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResult<unknown, Failure>> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (cause) {
      signal?.throwIfAborted();
      const { retryable } = classifyNetworkFailure(cause);
      const reason = timeout.aborted
        ? `timed out after ${this.options.timeoutMs} ms`
        : (cause as Error).message;
      return { ok: false, retryable, failure: { message: `request failed: ${reason}`, cause } };
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      const { retryable, detail } = classifyHttpFailure(response.status, text);
      const retryAfterMs = parseRetryAfterMs(response.headers.get("retry-after"));
      return {
        ok: false,
        retryable,
        failure: {
          status: response.status,
          message: `HTTP ${response.status}${statusHint(response.status)}: ${detail || "(empty body)"}`,
        },
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (cause) {
      return {
        ok: false,
        retryable: false,
        failure: { status: response.status, message: `response is not JSON: ${text.slice(0, 200)}`, cause },
      };
    }
  }

  private check(json: unknown, expected: number, attempts: number): Float32Array[] {
    const parsed = responseSchema.safeParse(json);
    if (!parsed.success) {
      const issue = issuesFromZod(parsed.error)[0];
      throw new EmbeddingRequestError(
        this.url,
        200,
        attempts,
        `not an embeddings response: ${issue?.path} ${issue?.message}`,
      );
    }
    const rows = [...parsed.data.data].sort((a, b) => a.index - b.index);
    if (rows.length !== expected || rows.some((r, i) => r.index !== i)) {
      throw new EmbeddingRequestError(
        this.url,
        200,
        attempts,
        `asked for ${expected} embeddings, got ${rows.length}`,
      );
    }
    return rows.map((r) => {
      if (this.dimensions > 0 && r.embedding.length !== this.dimensions) {
        throw new EmbeddingRequestError(
          this.url,
          200,
          attempts,
          `model ${this.model} returned ${r.embedding.length} dimensions, expected ${this.dimensions}`,
        );
      }
      return normaliseVector(Float32Array.from(r.embedding));
    });
  }
}

function positive(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidInputError(field, `must be a positive integer, got ${value}`);
  return value;
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return " (check the API key and its environment variable)";
  if (status === 404) return " (check base_url: it should end in /v1, and the model name)";
  if (status === 429) return " (rate limited)";
  return "";
}
