import type { ProviderConfig } from "../contracts/index.js";
import { IronclawError } from "../core/index.js";
import { createOpenAiProvider, type OpenAiProviderOptions } from "./openai-chat.js";
import type { Provider } from "./stream-event.js";

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
export const OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY";

/** A profile named a provider that neither irowclaw.toml nor the built-in defaults define. */
export class UnknownProviderError extends IronclawError {
  override readonly name = "UnknownProviderError";
  constructor(
    readonly provider: string,
    readonly known: string[],
  ) {
    super(
      "unknown_provider",
      `no provider named ${provider}: add [providers.${provider}] to irowclaw.toml (known: ${known.join(", ") || "none"})`,
    );
  }
}

export type ProviderFactory = () => Provider;

/** Providers by name, built on first use so that a missing key only matters for the provider actually used. */
export class ProviderRegistry {
  private readonly factories = new Map<string, ProviderFactory>();
  private readonly built = new Map<string, Provider>();

  /**
   * `fallback` serves every name not registered: the model proxy in a cell, where the warden, not the cell,
   * knows which providers exist.
   */
  constructor(private readonly fallback?: (name: string) => Provider) {}

  register(name: string, factory: ProviderFactory): this {
    this.factories.set(name, factory);
    this.built.delete(name);
    return this;
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  names(): string[] {
    return [...this.factories.keys()].sort();
  }

  get(name: string): Provider {
    const cached = this.built.get(name);
    if (cached) return cached;
    const factory = this.factories.get(name);
    if (!factory && !this.fallback) throw new UnknownProviderError(name, this.names());
    const provider = factory ? factory() : (this.fallback as (name: string) => Provider)(name);
    this.built.set(name, provider);
    return provider;
  }
}

/** Shared tuning for every provider of a registry (tests shorten retries and timeouts). */
export type ProviderTuning = Pick<
  OpenAiProviderOptions,
  "retry" | "idleTimeoutMs" | "fetch" | "includeUsage"
>;

/**
 * The registry for a brain's `[providers]` table. OpenRouter is always available as the default aggregator
 * (seed 003 §9.1) with its key from OPENROUTER_API_KEY unless the table says otherwise; every other provider is
 * whatever base URL the table gives, keyed only when it names an `api_key_env`.
 */
export function createProviderRegistry(
  providers: Record<string, ProviderConfig>,
  env: NodeJS.ProcessEnv = process.env,
  tuning: ProviderTuning = {},
): ProviderRegistry {
  const registry = new ProviderRegistry();
  const all: Record<string, ProviderConfig> = { openrouter: { base_url: OPENROUTER_BASE_URL }, ...providers };
  for (const [name, config] of Object.entries(all)) {
    const isOpenRouter = name === "openrouter" && config.base_url.replace(/\/+$/, "") === OPENROUTER_BASE_URL;
    const keyEnv = config.api_key_env ?? (isOpenRouter ? OPENROUTER_KEY_ENV : undefined);
    registry.register(name, () => {
      const apiKey = keyEnv === undefined ? undefined : env[keyEnv];
      return createOpenAiProvider({
        ...tuning,
        name,
        baseUrl: config.base_url,
        ...(apiKey ? { apiKey } : {}),
        ...(keyEnv ? { apiKeyEnv: keyEnv } : {}),
        requireKey: keyEnv !== undefined,
      });
    });
  }
  return registry;
}
