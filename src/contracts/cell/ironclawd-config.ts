import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { ianaTimeZone } from "./cron-expression.js";
import { bindAddress, hostPattern, httpUrl } from "./host-names.js";
import { envVarName, nameToken, providerName } from "./names.js";

export const CELL_BACKENDS = ["auto", "microvm", "bwrap", "process"] as const;
export type CellBackendSetting = (typeof CELL_BACKENDS)[number];

export const DEFAULT_PORT = 7410;

/** A file system path on the host; relative paths are read from IRONCLAW_HOME. */
const hostPath = aString()
  .min(1, "must not be empty")
  .refine((p) => !p.includes("\u0000"), "must not contain a NUL character");

// Every table is `.prefault({})`: a missing table is parsed as an empty one, so its fields get their defaults
// and an empty file is a complete config.
const serverSchema = z
  .strictObject({
    port: aNumber()
      .int("must be an integer")
      .min(1, "must be a TCP port from 1 to 65535")
      .max(65535, "must be a TCP port from 1 to 65535")
      .default(DEFAULT_PORT),
    // Loopback by default: exposing the warden is a decision, normally made behind a TLS proxy.
    bind: bindAddress.default("127.0.0.1"),
    // The origin browsers reach the UI at (behind a proxy: its https URL). WebSocket upgrades from any other
    // origin are refused; http://127.0.0.1:<port> and http://localhost:<port> are always accepted.
    public_url: httpUrl.optional(),
    // Largest request body accepted, in bytes.
    body_limit: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(64 * 1024 * 1024, "must be at most 67108864 bytes")
      .default(1024 * 1024),
  })
  .prefault({});

/** The largest message a front door passes to a cell; what the default is measured against is in the README. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024;

const limitsSchema = z
  .strictObject({
    // The largest chat message, in UTF-8 bytes, any front door (HTTP, OpenAI endpoint, WebSocket, Telegram)
    // takes; a larger one is refused with an error naming this limit, before it reaches the cell. Bounded so a
    // message always fits a protocol frame (8 MiB) with room for JSON escapes.
    max_message_bytes: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(4 * 1024 * 1024, "must be at most 4194304 bytes")
      .default(DEFAULT_MAX_MESSAGE_BYTES),
  })
  .prefault({});

const cellsSchema = z
  .strictObject({
    backend: z.enum(CELL_BACKENDS, `must be one of ${CELL_BACKENDS.join(", ")}`).default("auto"),
    // `auto` skips software-emulated microVMs (slow) and never picks the unisolated process backend unless
    // these allow it; naming a backend in `backend` is already that choice.
    allow_tcg: aBoolean().default(false),
    allow_process: aBoolean().default(false),
    // Stop a user's cell after this long without traffic (0 = keep running); it starts again on the next use.
    idle_stop_minutes: aNumber().min(0, "must be at least 0").default(15),
    // microVM cells whose image can resume them are suspended to disk when idle (their memory, beside the brain:
    // about what the guest used) and resume where they were on the next use, instead of booting again.
    suspend_idle: aBoolean().default(true),
    // A suspended cell's save older than this is deleted (the cell then boots on its next use).
    suspended_keep_days: aNumber().positive("must be more than 0").default(7),
    // Blank cells kept started for users who have no cell running: a user's first message (or the first after
    // an idle stop) gets one with their brain attached instead of waiting for a start. Where cells cannot be
    // started blank (microvm, process, a warden that is not root) nothing is pooled and cells start cold.
    pool_size: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(64, "must be at most 64")
      .default(1),
    // Cell image parts; when absent the ones built into IRONCLAW_HOME/images/ are used.
    kernel: hostPath.optional(),
    initramfs: hostPath.optional(),
    rootfs: hostPath.optional(),
  })
  .prefault({});

const storageSchema = z
  .strictObject({
    // When absent: the IRONCLAW_HOME environment variable, else ~/.ironclaw.
    home: hostPath.optional(),
    users_dir: hostPath.default("users"),
  })
  .prefault({});

/** A channel credential: the token itself (this file stays on the host) or the variable that holds it. */
export const channelCredentialSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    token: aString().min(1, "must not be empty").optional(),
    token_env: envVarName.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.token !== undefined && c.token_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["token_env"],
        message: "give token or token_env, not both",
        input: c,
      });
    } else if (c.enabled && c.token === undefined && c.token_env === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["token"],
        message: "is required (or token_env) when enabled",
        input: c,
      });
    }
  });
export type ChannelCredential = z.output<typeof channelCredentialSchema>;

/**
 * A Telegram bot (seed 003 §16.1): its token, the secret Telegram echoes in X-Telegram-Bot-Api-Secret-Token on
 * every webhook call (without one, anybody who guesses the URL could speak as any Telegram user), and the Bot
 * API base URL (a local fake in tests, a self-hosted Bot API server in production if wanted).
 */
export const telegramBotSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    token: aString().min(1, "must not be empty").optional(),
    token_env: envVarName.optional(),
    secret_token: aString()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
      .optional(),
    secret_token_env: envVarName.optional(),
    api_base_url: httpUrl.default("https://api.telegram.org"),
    // The URL segment of the webhook: POST /channels/telegram/<bot>.
    bot: nameToken("a bot name", "family").default("default"),
  })
  .superRefine((c, ctx) => {
    const pair = (inline: "token", env: "token_env") => {
      if (c[inline] !== undefined && c[env] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [env],
          message: `give ${inline} or ${env}, not both`,
          input: c,
        });
      } else if (c.enabled && c[inline] === undefined && c[env] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: [inline],
          message: `is required (or ${env}) when enabled`,
          input: c,
        });
      }
    };
    pair("token", "token_env");
    // The secret may be left out: the warden then makes one at each start and registers the webhook with
    // it itself, which needs [server] public_url (it refuses to run the bot otherwise).
    if (c.secret_token !== undefined && c.secret_token_env !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["secret_token_env"],
        message: "give secret_token or secret_token_env, not both",
        input: c,
      });
    }
  });
export type TelegramBotConfig = z.output<typeof telegramBotSchema>;

// Strict, so that a misspelt or not yet supported channel is reported instead of silently ignored.
const integrationsSchema = z.strictObject({ telegram: telegramBotSchema.optional() }).prefault({});

/**
 * A model provider the warden offers to cells (the model proxy). Keys stay on the host: inline here (this file
 * is the host's, mode 0600) or, preferably, in the environment variable named by api_key_env. A cell names a
 * provider; it can never name a URL or a variable.
 */
export const hostProviderSchema = z
  .strictObject({
    base_url: httpUrl,
    api_key_env: envVarName.optional(),
    api_key: aString().min(1, "must not be empty").optional(),
    // Models a cell may ask for; empty = any model the provider serves.
    models: z.array(aString().min(1, "must not be empty")).default([]),
  })
  .refine((p) => !(p.api_key !== undefined && p.api_key_env !== undefined), {
    path: ["api_key_env"],
    message: "give api_key or api_key_env, not both",
  });
export type HostProviderConfig = z.output<typeof hostProviderSchema>;

/** The host's egress policy for the browser tool's fetches, applied by the warden (seed 003 §11). */
const egressSchema = z
  .strictObject({
    // allow: any public host but deny_hosts; deny: only allow_hosts.
    policy: z.enum(["allow", "deny"], "must be one of allow, deny").default("allow"),
    allow_hosts: z.array(hostPattern).default([]),
    deny_hosts: z.array(hostPattern).default([]),
    // Loopback, private and link-local addresses stay unreachable from cells unless the operator opts in.
    allow_private: aBoolean().default(false),
    max_bytes: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(64 * 1024 * 1024, "must be at most 67108864 bytes")
      .default(4 * 1024 * 1024),
    timeout_ms: aNumber()
      .int("must be an integer")
      .min(100, "must be at least 100 ms")
      .max(300_000, "must be at most 300000 ms")
      .default(20_000),
  })
  .prefault({});

/**
 * Soul guard (seed 003 §11.3): which of the agent's changes to its prompt files (soul.md, identity.md,
 * instructions/*.md, profile persona files), measured against the version a person approved, are held for approval.
 */
const soulGuardSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    // Hold a change whose removed plus added lines hold more characters than this share of the file (0.5: a
    // paragraph as long as half the file added, or a quarter of it rewritten in place).
    max_change_ratio: aNumber()
      .min(0, "must be between 0 and 1")
      .max(1, "must be between 0 and 1")
      .default(0.5),
    // Hold a change that removes a line containing any of these words (case-insensitive).
    protected_words: z
      .array(aString().min(1, "must not be empty"))
      .default(["never", "must not", "do not", "don't", "always", "refuse", "safety", "privacy", "secret"]),
    // Hold a change that adds a line matching any of these regular expressions (case-insensitive).
    suspicious_patterns: z.array(aString().min(1, "must not be empty")).optional(),
  })
  .prefault({});

const authSchema = z
  .strictObject({
    session_ttl_hours: aNumber()
      .min(0.1, "must be at least 0.1")
      .max(8760, "must be at most 8760")
      .default(168),
    login_link_ttl_minutes: aNumber()
      .min(1, "must be at least 1")
      .max(10080, "must be at most 10080")
      .default(60),
    login_attempts_per_minute: aNumber().int("must be an integer").min(1, "must be at least 1").default(10),
  })
  .prefault({});

/** What a new user's brain starts with, so a host with a local model server works without editing brains. */
const newBrainsSchema = z
  .strictObject({
    provider: nameToken("a provider name", "openrouter").optional(),
    model: aString().min(1, "must not be empty").optional(),
    // Embeddings from this provider's /v1/embeddings (through the warden) instead of the built-in embedder.
    embedding_provider: nameToken("a provider name", "openrouter").optional(),
    embedding_model: aString().min(1, "must not be empty").optional(),
  })
  .refine((b) => (b.embedding_provider === undefined) === (b.embedding_model === undefined), {
    path: ["embedding_model"],
    message: "give embedding_provider and embedding_model together",
  })
  .prefault({});

const uiSchema = z
  .strictObject({
    enabled: aBoolean().default(true),
    path: aString()
      .regex(/^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/, "must be a URL path starting with / (like /ui)")
      .default("/ui"),
  })
  .prefault({});

const usdPerMillionTokens = aNumber()
  .min(0, "must be at least 0 (US dollars per million tokens)")
  .max(10_000, "must be at most 10000 (US dollars per million tokens)");

/** A model's price in US dollars per million tokens, as the provider lists it. */
export const modelPriceSchema = z.strictObject({
  input: usdPerMillionTokens,
  output: usdPerMillionTokens,
  // Prompt tokens the provider served from its cache, where it reports them; charged at `input` otherwise.
  cached_input: usdPerMillionTokens.optional(),
});
export type ModelPrice = z.output<typeof modelPriceSchema>;

// [pricing.<provider>."<model>"]: prices that add to or override the table shipped with the warden.
const pricingSchema = z
  .record(
    providerName,
    z.record(
      aString()
        .min(1, "a model name must not be empty")
        .max(256, "a model name must be at most 256 characters"),
      modelPriceSchema,
    ),
  )
  .default({});

/** Spend caps: the caps themselves live in host.db (`ironclaw budget`); these are the rules they follow. */
const budgetsSchema = z
  .strictObject({
    // The days and months of the host-wide cap, and of users given no time zone of their own.
    timezone: ianaTimeZone.default("UTC"),
    // Under a budget a model without a price is refused (its cost cannot be bounded); true lets it through at $0.
    allow_unpriced: aBoolean().default(false),
    // The output a call without max_tokens may produce under a budget: reserved before the call and sent to the
    // provider as its max_tokens, so the reservation is a true worst case.
    default_max_tokens: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(1_000_000, "must be at most 1000000")
      .default(4096),
    // Shares of a cap (percent) at which the user is told, each once per day or month.
    alert_percent: z
      .array(aNumber().int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100"))
      .default([50, 80, 100]),
  })
  .prefault({});

/** `ironclawd.toml`, the host daemon's config (seed 003 §10.1). */
export const ironclawdConfigSchema = z.strictObject({
  server: serverSchema,
  limits: limitsSchema,
  cells: cellsSchema,
  storage: storageSchema,
  integrations: integrationsSchema,
  ui: uiSchema,
  // OpenRouter is offered with OPENROUTER_API_KEY when this table does not name it (seed 003 §9.1).
  providers: z.record(providerName, hostProviderSchema).default({}),
  egress: egressSchema,
  soul_guard: soulGuardSchema,
  auth: authSchema,
  new_brains: newBrainsSchema,
  pricing: pricingSchema,
  budgets: budgetsSchema,
});
export type IronclawdConfig = z.output<typeof ironclawdConfigSchema>;
export type IronclawdConfigInput = z.input<typeof ironclawdConfigSchema>;

export const ironclawdConfigContract = defineContract({
  kind: "ironclawd-config",
  seed: "003",
  title: "Host daemon config (ironclawd.toml)",
  description:
    "The warden's TOML config: [server] port, bind address and public URL, [limits] the largest chat message, [cells] backend, image paths and " +
    "idle stop, [storage] home and users directory, [integrations] channel tokens (inline or by environment " +
    "variable), [ui], [providers.<name>] the model providers offered to cells, [egress] the browser's network " +
    'policy, [soul_guard], [auth], [new_brains], [pricing.<provider>."<model>"] model prices in US dollars per ' +
    "million tokens and [budgets] the rules of spend caps. " +
    "Every key has a default, so an empty file is a valid config.",
  format: "toml",
  schema: ironclawdConfigSchema,
});
