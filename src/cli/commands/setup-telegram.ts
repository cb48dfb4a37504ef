import { randomBytes } from "node:crypto";
import { renderUnicodeCompact } from "uqr";
import { IronclawError } from "../../core/index.js";
import { TelegramApi } from "../../warden/index.js";
import type { Prompter } from "./setup-prompter.js";
import { baseUrlRule, envNameRule } from "./setup-provider.js";
import { record, str } from "./setup-values.js";

export const TELEGRAM_API = "https://api.telegram.org";
const SECRET_ENV = "TELEGRAM_WEBHOOK_SECRET";

export interface TelegramFlags {
  "telegram-token-env"?: string | undefined;
  "telegram-api-url"?: string | undefined;
  "public-url"?: string | undefined;
}

export interface TelegramSetup {
  /** [integrations.telegram] as it is to be written. */
  table: Record<string, unknown>;
  /** [server] public_url, when one was given. */
  publicUrl: string | undefined;
  /** Variables for ironclawd.env: the token and the webhook's secret. */
  envValues: Record<string, string>;
  /** The bot's username from getMe, for its t.me link. */
  username: string;
}

interface TelegramContext {
  flags: TelegramFlags;
  existing: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  fileEnv: Record<string, string>;
}

/**
 * Links a Telegram bot, if wanted: the token's variable and value (checked with getMe, which also gives the
 * username the pairing link needs), and how Telegram's webhook calls are authenticated: the warden registers the
 * webhook itself where it has a public URL, else a secret is made for ironclawd.env.
 */
export async function setUpTelegram(p: Prompter, ctx: TelegramContext): Promise<TelegramSetup | undefined> {
  const integrations = record(ctx.existing.integrations);
  const before = record(integrations.telegram);
  const wanted = ctx.flags["telegram-token-env"] !== undefined || Object.keys(before).length > 0;
  if (!(await p.confirm("Link a Telegram bot (made with @BotFather)?", wanted))) return undefined;
  const tokenEnv = (await p.text({
    prompt: "Environment variable holding the bot's token",
    fallback: ctx.flags["telegram-token-env"] ?? str(before.token_env) ?? "TELEGRAM_BOT_TOKEN",
    check: envNameRule,
    flag: "--telegram-token-env",
  })) as string;
  const have = ctx.fileEnv[tokenEnv] || ctx.env[tokenEnv] || undefined;
  const typed = p.interactive
    ? await p.secret(`The bot's token (not shown${have ? "; Enter keeps the one set" : ""})`)
    : "";
  const token = typed || have;
  if (!token)
    throw new IronclawError(
      "missing_token",
      `no Telegram token: set ${tokenEnv} (--telegram-token-env names the variable), or type it on a terminal`,
    );
  const apiBaseUrl = ctx.flags["telegram-api-url"] ?? str(before.api_base_url) ?? TELEGRAM_API;
  const rule = baseUrlRule(apiBaseUrl);
  if (rule) throw new IronclawError("bad_flag", `--telegram-api-url: ${rule}`);
  const username = await new TelegramApi({ baseUrl: apiBaseUrl, token, maxRetries: 0 }).username();
  if (!username)
    throw new IronclawError(
      "telegram_refused",
      `Telegram did not answer getMe with this token (${apiBaseUrl}): check the token from @BotFather. Nothing was written`,
    );
  p.say(`  ok: the bot is @${username}`);
  const publicUrl = await p.text({
    prompt: "The https address Telegram reaches this warden at (skip if none yet)",
    fallback: ctx.flags["public-url"] ?? str(record(ctx.existing.server).public_url),
    optional: true,
    check: baseUrlRule,
    flag: "--public-url",
  });
  const envValues: Record<string, string> = {};
  if (typed || !ctx.fileEnv[tokenEnv]) envValues[tokenEnv] = token;
  const table: Record<string, unknown> = {
    ...before,
    enabled: true,
    token_env: tokenEnv,
    bot: str(before.bot) ?? "default",
  };
  delete table.token;
  if (apiBaseUrl !== TELEGRAM_API) table.api_base_url = apiBaseUrl;
  if (publicUrl === undefined && before.secret_token === undefined) {
    // Without a public URL the warden cannot register the webhook with a secret of its own: one is made here.
    const secretEnv = str(before.secret_token_env) ?? SECRET_ENV;
    if (!ctx.fileEnv[secretEnv]) envValues[secretEnv] = randomBytes(24).toString("base64url");
    table.secret_token_env = secretEnv;
  }
  return { table, publicUrl, envValues, username };
}

/** The deep link that opens the bot and sends `/start <code>`, with its QR code for a phone's camera. */
export function pairingLinkText(username: string, code: string): string {
  const link = `https://t.me/${username}?start=${code}`;
  return `${renderUnicodeCompact(link, { border: 2 })}\n${link}`;
}
