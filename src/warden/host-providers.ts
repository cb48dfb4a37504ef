import type { HostProviderConfig, IronclawdConfig } from "../contracts/index.js";
import {
  createOpenAiProvider,
  OPENROUTER_BASE_URL,
  OPENROUTER_KEY_ENV,
  OpenAiEmbedder,
  type Provider,
  type ProviderTuning,
} from "../providers/index.js";

/** Why the warden refuses a cell's model call before it reaches any provider. */
export interface ProviderRefusal {
  refused: string;
}

/**
 * The model providers this host offers to cells: `[providers.<name>]` of ironclawd.toml, plus OpenRouter with
 * OPENROUTER_API_KEY when the table does not define it (seed 003 §9.1). Keys come from the warden's own
 * environment or the host file; a cell only ever names a provider and a model.
 */
export class HostProviders {
  private readonly configs: Record<string, HostProviderConfig>;
  private readonly chat = new Map<string, Provider>();
  private readonly embedders = new Map<string, Promise<OpenAiEmbedder>>();

  constructor(
    config: Pick<IronclawdConfig, "providers">,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly tuning: ProviderTuning = {},
  ) {
    this.configs = {
      openrouter: { base_url: OPENROUTER_BASE_URL, api_key_env: OPENROUTER_KEY_ENV, models: [] },
      ...config.providers,
    };
  }

  names(): string[] {
    return Object.keys(this.configs).sort();
  }

  /** The provider for a cell's call, or why it is refused (unknown provider, a model the host does not allow). */
  resolve(name: string, model: string): Provider | ProviderRefusal {
    const config = Object.hasOwn(this.configs, name) ? this.configs[name] : undefined;
    if (!config) {
      return {
        refused: `provider ${name} is not offered by this host (offered: ${this.names().join(", ")}); an operator adds it under [providers.${name}] in ironclawd.toml`,
      };
    }
    if (config.models.length > 0 && !config.models.includes(model)) {
      return {
        refused: `model ${model} is not allowed on provider ${name} (allowed: ${config.models.join(", ")})`,
      };
    }
    let provider = this.chat.get(name);
    if (!provider) {
      const key = this.keyOf(config);
      provider = createOpenAiProvider({
        ...this.tuning,
        name,
        baseUrl: config.base_url,
        ...(key ? { apiKey: key } : {}),
        ...(config.api_key_env ? { apiKeyEnv: config.api_key_env } : {}),
        requireKey: config.api_key_env !== undefined || config.api_key !== undefined,
      });
      this.chat.set(name, provider);
    }
    return provider;
  }

  /** An embeddings client for `[indexing] embedder = "provider"` cells. */
  async embedder(name: string, model: string): Promise<OpenAiEmbedder | ProviderRefusal> {
    const config = Object.hasOwn(this.configs, name) ? this.configs[name] : undefined;
    if (!config)
      return {
        refused: `provider ${name} is not offered by this host (offered: ${this.names().join(", ")})`,
      };
    const id = `${name}\u0000${model}`;
    let made = this.embedders.get(id);
    if (!made) {
      const key = this.keyOf(config);
      made = OpenAiEmbedder.create({ baseUrl: config.base_url, model, ...(key ? { apiKey: key } : {}) });
      made.catch(() => this.embedders.delete(id));
      this.embedders.set(id, made);
    }
    return made;
  }

  private keyOf(config: HostProviderConfig): string | undefined {
    if (config.api_key) return config.api_key;
    return config.api_key_env ? this.env[config.api_key_env] || undefined : undefined;
  }
}

export function isRefusal<T extends object>(value: T | ProviderRefusal): value is ProviderRefusal {
  return "refused" in value;
}
