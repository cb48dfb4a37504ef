import type { ModelPrice } from "../../contracts/index.js";

/**
 * The day the table below was read from the providers' public price lists. Prices change: an operator overrides
 * any of them (or adds a model) under `[pricing.<provider>."<model>"]` in ironclawd.toml, and a model that is in
 * neither place has no price, which under a budget means its calls are refused.
 */
export const DEFAULT_PRICES_AS_OF = "2025-11-25";

// US dollars per million tokens: input, output, and cached input where the provider bills it separately.
const common: Record<string, ModelPrice> = {
  "anthropic/claude-opus-4.5": { input: 5, output: 25, cached_input: 0.5 },
  "anthropic/claude-sonnet-4.5": { input: 3, output: 15, cached_input: 0.3 },
  "anthropic/claude-haiku-4.5": { input: 1, output: 5, cached_input: 0.1 },
  "anthropic/claude-sonnet-4": { input: 3, output: 15, cached_input: 0.3 },
  "openai/gpt-5": { input: 1.25, output: 10, cached_input: 0.125 },
  "openai/gpt-5-mini": { input: 0.25, output: 2, cached_input: 0.025 },
  "openai/gpt-5-nano": { input: 0.05, output: 0.4, cached_input: 0.005 },
  "openai/gpt-4.1": { input: 2, output: 8, cached_input: 0.5 },
  "openai/gpt-4.1-mini": { input: 0.4, output: 1.6, cached_input: 0.1 },
  "openai/gpt-4o": { input: 2.5, output: 10, cached_input: 1.25 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6, cached_input: 0.075 },
  "google/gemini-2.5-pro": { input: 1.25, output: 10, cached_input: 0.31 },
  "google/gemini-2.5-flash": { input: 0.3, output: 2.5, cached_input: 0.075 },
  // Embedding models bill input only; memory indexing through a provider is charged at these.
  "openai/text-embedding-3-small": { input: 0.02, output: 0 },
  "openai/text-embedding-3-large": { input: 0.13, output: 0 },
};

/** OpenRouter names models `<vendor>/<model>`; OpenAI's own API names them without the vendor. */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = {
  openrouter: common,
  openai: Object.fromEntries(
    Object.entries(common)
      .filter(([model]) => model.startsWith("openai/"))
      .map(([model, price]) => [model.slice("openai/".length), price]),
  ),
};
