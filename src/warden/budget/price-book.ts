import type { IronclawdConfig, ModelPrice } from "../../contracts/index.js";
import { DEFAULT_MODEL_PRICES, DEFAULT_PRICES_AS_OF } from "./model-price-table.js";

/** Token counts of one call, as the provider reported them or as estimated. */
export interface TokenCounts {
  input: number;
  output: number;
  /** Input tokens served from the provider's cache (part of `input`), where it reports them. */
  cachedInput?: number;
}

export interface PricedModel {
  provider: string;
  model: string;
  price: ModelPrice;
  source: "config" | `default ${string}`;
}

/**
 * Model prices: the shipped dated table, with ironclawd.toml's `[pricing]` on top. Money is counted in whole
 * micro-dollars (µUSD): a price in USD per million tokens times a token count is exactly µUSD, and integers add
 * up without drift however many calls a month holds.
 */
export class PriceBook {
  constructor(
    private readonly configured: IronclawdConfig["pricing"],
    private readonly defaults = DEFAULT_MODEL_PRICES,
  ) {}

  priceOf(provider: string, model: string): ModelPrice | undefined {
    return lookup(this.configured, provider, model) ?? lookup(this.defaults, provider, model);
  }

  /** Every known price, the operator's first, for `ironclaw budget prices`-style listings. */
  list(): PricedModel[] {
    const out: PricedModel[] = [];
    const seen = new Set<string>();
    for (const [source, table] of [
      ["config", this.configured],
      [`default ${DEFAULT_PRICES_AS_OF}`, this.defaults],
    ] as const) {
      for (const [provider, models] of Object.entries(table)) {
        for (const [model, price] of Object.entries(models)) {
          const id = `${provider}\u0000${model}`;
          if (seen.has(id)) continue;
          seen.add(id);
          out.push({ provider, model, price, source });
        }
      }
    }
    return out;
  }
}

function lookup(
  table: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>>,
  provider: string,
  model: string,
): ModelPrice | undefined {
  const models = Object.hasOwn(table, provider) ? table[provider] : undefined;
  return models && Object.hasOwn(models, model) ? models[model] : undefined;
}

/**
 * What a call costs in µUSD, rounded up: a cap must never be passed by rounding. Prices are held to thousandths
 * of a dollar per million tokens on the way in, so the sum is exact integer arithmetic.
 */
export function costMicros(price: ModelPrice, tokens: TokenCounts): number {
  const milli = (usdPerMillion: number) => Math.round(usdPerMillion * 1000);
  const cached = Math.min(Math.max(tokens.cachedInput ?? 0, 0), tokens.input);
  const cachedPrice = price.cached_input ?? price.input;
  const nano =
    (tokens.input - cached) * milli(price.input) +
    cached * milli(cachedPrice) +
    tokens.output * milli(price.output);
  return Math.ceil(nano / 1000);
}

/** µUSD as dollars for people: `$0.03`, `$0.0315`, `$12.50`. */
export function formatUsd(micros: number): string {
  const dollars = micros / 1_000_000;
  const text = dollars.toFixed(6).replace(/0+$/, "");
  const [whole, fraction = ""] = text.split(".");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

export function microsToUsd(micros: number): number {
  return micros / 1_000_000;
}

export function usdToMicros(usd: number): number {
  return Math.round(usd * 1_000_000);
}
