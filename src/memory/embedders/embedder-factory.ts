import type { IrowclawConfig } from "../../contracts/index.js";
import { ConfigError, ironclawHome } from "../../core/index.js";
import { BuiltinEmbedder } from "./builtin-embedder.js";
import type { Embedder } from "./embedder.js";

/** Where a remote embedder sends its requests: an OpenAI-compatible `/v1/embeddings` endpoint. */
export interface RemoteEmbedderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

/**
 * Makes the embedder for `embedder = "provider"`. Injected because remote endpoints are the providers' concern
 * (`OpenAiEmbedder.create` in providers/), and memory sits on the same floor as providers, so cannot import it.
 */
export type RemoteEmbedderFactory = (options: RemoteEmbedderOptions) => Promise<Embedder>;

export interface CreateEmbedderOptions {
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  configFile?: string;
  /** Needed only when `[indexing]` asks for a provider's embedder. */
  remoteEmbedder?: RemoteEmbedderFactory;
}

/**
 * The embedder `[indexing]` asks for: `local` is the built-in one; `provider` is the OpenAI-compatible endpoint
 * of `[providers.<embedding_provider>]`, with the key read from the environment variable it names.
 */
export async function createEmbedder(
  config: Pick<IrowclawConfig, "indexing" | "providers">,
  options: CreateEmbedderOptions = {},
): Promise<Embedder> {
  const env = options.env ?? process.env;
  const { indexing } = config;
  if (indexing.embedder === "local")
    return BuiltinEmbedder.load({ dataDir: options.dataDir ?? ironclawHome(env) });
  const file = options.configFile ?? "config/irowclaw.toml";
  const name = indexing.embedding_provider;
  const provider = name === undefined ? undefined : config.providers[name];
  if (name === undefined || provider === undefined || indexing.embedding_model === undefined) {
    throw new ConfigError(file, [
      {
        key: "indexing.embedding_provider",
        rule: "must name a provider under [providers] with embedding_model",
      },
    ]);
  }
  const keyVar = provider.api_key_env;
  const apiKey = keyVar === undefined ? undefined : env[keyVar];
  if (keyVar !== undefined && !apiKey) {
    throw new ConfigError(file, [
      { key: `providers.${name}.api_key_env`, rule: `names ${keyVar}, which is not set in the environment` },
    ]);
  }
  if (options.remoteEmbedder === undefined) {
    throw new ConfigError(file, [
      { key: "indexing.embedder", rule: `"provider" is not available to this command; use "local"` },
    ]);
  }
  return options.remoteEmbedder({
    baseUrl: provider.base_url,
    model: indexing.embedding_model,
    ...(apiKey ? { apiKey } : {}),
  });
}
