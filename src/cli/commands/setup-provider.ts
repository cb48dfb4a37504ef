import { envVarName, hostProviderSchema } from "../../contracts/index.js";
import { IronclawError } from "../../core/index.js";
import { DEFAULT_MODEL } from "../../memory/index.js";
import {
  checkModelCall,
  createOpenAiProvider,
  listModels,
  OPENROUTER_BASE_URL,
  OPENROUTER_KEY_ENV,
  type ProviderFailure,
  probeLocalModelServers,
} from "../../providers/index.js";
import type { Prompter } from "./setup-prompter.js";
import { record, str } from "./setup-values.js";

export const PROVIDER_CHOICES = ["openrouter", "openai", "anthropic", "local", "custom"] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

interface Preset {
  about: string;
  baseUrl?: string;
  keyEnv?: string;
  model?: string;
}

const PRESETS: Record<ProviderChoice, Preset> = {
  openrouter: {
    about: "OpenRouter: most models behind one key",
    baseUrl: OPENROUTER_BASE_URL,
    keyEnv: OPENROUTER_KEY_ENV,
    model: DEFAULT_MODEL,
  },
  openai: {
    about: "OpenAI's API",
    baseUrl: "https://api.openai.com/v1",
    keyEnv: "OPENAI_API_KEY",
    model: "gpt-5-mini",
  },
  anthropic: {
    about: "Anthropic through its OpenAI-compatible endpoint, or a gateway to it (LiteLLM…) by its base URL",
    baseUrl: "https://api.anthropic.com/v1",
    keyEnv: "ANTHROPIC_API_KEY",
    model: "claude-sonnet-4-5",
  },
  local: { about: "a model server on this machine: Ollama, vLLM, llama.cpp, LM Studio (no key)" },
  custom: { about: "any other OpenAI-compatible server, by its base URL" },
};

export interface ProviderFlags {
  provider?: ProviderChoice | undefined;
  "base-url"?: string | undefined;
  "api-key-env"?: string | undefined;
  model?: string | undefined;
  "command-model"?: string | undefined;
  "skip-test": boolean;
}

export interface ProviderSetup {
  /** Its name under [providers], the one [new_brains] names. */
  name: string;
  baseUrl: string;
  keyEnv: string | undefined;
  /** A key to put into ironclawd.env: typed now, or found only in this process's environment. */
  keyToStore: string | undefined;
  model: string;
  commandModel: string | undefined;
}

interface ProviderContext {
  flags: ProviderFlags;
  /** A key piped on stdin (--key-stdin). */
  stdinKey: string | undefined;
  /** What ironclawd.toml sets now. */
  existing: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  fileEnv: Record<string, string>;
}

/** The rule a base URL breaks, as [providers] words it; undefined when it is good. */
export function baseUrlRule(value: string): string | undefined {
  const parsed = hostProviderSchema.safeParse({ base_url: value });
  return parsed.success ? undefined : "must be an http(s) URL like http://127.0.0.1:11434/v1";
}

export function envNameRule(value: string): string | undefined {
  const parsed = envVarName.safeParse(value);
  return parsed.success
    ? undefined
    : (parsed.error.issues[0]?.message ?? "must name an environment variable");
}

/**
 * Picks the provider, its base URL and key, the agents' models, and proves them with one real call. On a
 * terminal a failed call offers to answer again; with --yes it stops the wizard before anything is written.
 */
export async function setUpProvider(p: Prompter, ctx: ProviderContext): Promise<ProviderSetup> {
  for (;;) {
    const chosen = await askProvider(p, ctx);
    if (ctx.flags["skip-test"]) {
      p.say("The test call is skipped (--skip-test).");
      return chosen.setup;
    }
    p.say(`Testing ${chosen.setup.model} at ${chosen.setup.baseUrl} with one real call…`);
    const provider = createOpenAiProvider({
      name: chosen.setup.name,
      baseUrl: chosen.setup.baseUrl,
      ...(chosen.key ? { apiKey: chosen.key } : {}),
      ...(chosen.setup.keyEnv ? { apiKeyEnv: chosen.setup.keyEnv, requireKey: true } : {}),
      retry: { maxRetries: 0 },
      idleTimeoutMs: 60_000,
    });
    const check = await checkModelCall(provider, chosen.setup.model);
    if (check.ok) {
      p.say(`  ok: ${chosen.setup.model} answered.`);
      return chosen.setup;
    }
    const why = explainFailure(check.failure, chosen.setup);
    if (!p.interactive)
      throw new IronclawError(
        "provider_test_failed",
        `the test call failed: ${why}. Nothing was written (--skip-test writes the settings without it)`,
      );
    p.say(`  the test call failed: ${why}`);
    if (!(await p.confirm("Answer the provider's questions again? (n keeps these answers)", true)))
      return chosen.setup;
  }
}

async function askProvider(
  p: Prompter,
  ctx: ProviderContext,
): Promise<{ setup: ProviderSetup; key?: string }> {
  const { flags, existing } = ctx;
  const brains = record(existing.new_brains);
  const current = typeof brains.provider === "string" ? brains.provider : undefined;
  const hosted = flags.provider !== undefined && flags.provider !== "local" && flags.provider !== "custom";
  const found = hosted || flags["base-url"] ? [] : await probeLocalModelServers();
  for (const server of found)
    p.say(`Found ${server.name} at ${server.baseUrl} (${server.models.length} model(s))`);
  p.say("Model providers:");
  for (const choice of PROVIDER_CHOICES) p.say(`  ${choice.padEnd(10)} ${PRESETS[choice].about}`);
  const fallback: ProviderChoice =
    flags.provider ??
    (current === undefined
      ? found.length > 0
        ? "local"
        : "openrouter"
      : (PROVIDER_CHOICES as readonly string[]).includes(current)
        ? (current as ProviderChoice)
        : "custom");
  const choice = await p.choose("Model provider", PROVIDER_CHOICES, fallback, "--provider");
  const name =
    choice === "custom" && current !== undefined && !PRESETS[current as ProviderChoice] ? current : choice;
  const before = record(record(existing.providers)[name]);
  const preset = PRESETS[choice];
  const baseUrl = (await p.text({
    prompt: "Base URL of its OpenAI-compatible API",
    fallback:
      flags["base-url"] ??
      str(before.base_url) ??
      preset.baseUrl ??
      (choice === "local" ? (found[0]?.baseUrl ?? "http://127.0.0.1:11434/v1") : undefined),
    check: baseUrlRule,
    flag: "--base-url",
  })) as string;
  const needsKey = preset.keyEnv !== undefined;
  const keyEnv = await p.text({
    prompt: needsKey
      ? "Environment variable holding its key"
      : "Environment variable holding its key, if it takes one",
    fallback: flags["api-key-env"] ?? str(before.api_key_env) ?? preset.keyEnv,
    optional: !needsKey,
    check: envNameRule,
    flag: "--api-key-env",
  });
  const key = keyEnv === undefined ? {} : await askKey(p, ctx, keyEnv);
  const listing = await listModels(baseUrl, { ...(key.key ? { apiKey: key.key } : {}), timeoutMs: 10_000 });
  if (listing.ok && listing.models.length > 0) {
    const shown = listing.models.slice(0, 8).join(", ");
    p.say(`It lists ${listing.models.length} model(s): ${shown}${listing.models.length > 8 ? ", …" : ""}`);
  } else if (!listing.ok) p.say(`Its model list could not be read: ${listing.reason}`);
  const listed = listing.ok ? listing.models : [];
  const model = (await p.text({
    prompt: "Model of each user's personal agent",
    fallback:
      flags.model ??
      (current === name ? str(brains.model) : undefined) ??
      (preset.model && (listed.length === 0 || listed.includes(preset.model)) ? preset.model : listed[0]),
    flag: "--model",
  })) as string;
  const commandModel = await p.text({
    prompt: "Model command plans with (skip: the same)",
    fallback: flags["command-model"] ?? str(record(existing.command).model),
    optional: true,
    flag: "--command-model",
  });
  return {
    setup: { name, baseUrl, keyEnv, keyToStore: key.store, model, commandModel },
    ...(key.key ? { key: key.key } : {}),
  };
}

/** The key in effect for `keyEnv`, and whether it must be written to ironclawd.env. */
async function askKey(
  p: Prompter,
  ctx: ProviderContext,
  keyEnv: string,
): Promise<{ key?: string; store?: string }> {
  const fromProcess = ctx.env[keyEnv] || undefined;
  const fromFile = ctx.fileEnv[keyEnv] || undefined;
  // A key only this shell holds goes into the file too: the service does not start from this shell.
  const have = fromFile ?? fromProcess;
  const keep = have === undefined ? {} : { key: have, ...(fromFile ? {} : { store: have }) };
  if (ctx.stdinKey) return { key: ctx.stdinKey, store: ctx.stdinKey };
  if (!p.interactive) {
    if (have) return keep;
    throw new IronclawError(
      "missing_key",
      `no key for ${keyEnv}: pipe it on stdin with --key-stdin, or set ${keyEnv} (nothing was written)`,
    );
  }
  const typed = await p.secret(
    `Its key, stored in ironclawd.env as ${keyEnv} (not shown${have ? "; Enter keeps the one set" : "; Enter: none yet"})`,
  );
  if (typed !== "") return { key: typed, store: typed };
  if (!have) p.say(`  no key yet: add ${keyEnv}=… to ironclawd.env before the warden starts`);
  return keep;
}

function explainFailure(failure: ProviderFailure, setup: ProviderSetup): string {
  switch (failure.code) {
    case "auth_failed":
      return `the server refused the key in ${setup.keyEnv ?? "(none)"}${failure.status ? ` (HTTP ${failure.status})` : ""}`;
    case "unknown_model":
      return `the server does not offer the model "${setup.model}"`;
    case "network_error":
    case "timeout":
      return `${setup.baseUrl} cannot be reached: ${failure.message}`;
    default:
      return failure.message;
  }
}
