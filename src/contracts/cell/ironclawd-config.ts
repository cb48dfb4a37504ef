import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { ianaTimeZone } from "./cron-expression.js";
import { bindAddress, hostPattern, httpUrl, isHostName } from "./host-names.js";
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
      .default(DEFAULT_PORT)
      .describe("The TCP port of the HTTP API, the WebSocket and the UI."),
    bind: bindAddress
      .default("127.0.0.1")
      .describe(
        "The address to listen on. Loopback by default: exposing the warden is a decision, normally made behind a TLS proxy.",
      ),
    public_url: httpUrl.optional().meta({
      description:
        "The origin browsers reach the UI at (behind a proxy: its https URL). WebSocket upgrades from any other " +
        "origin are refused; http://127.0.0.1:<port> and http://localhost:<port> are always accepted.",
      examples: ["https://claw.example.org"],
    }),
    body_limit: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(64 * 1024 * 1024, "must be at most 67108864 bytes")
      .default(1024 * 1024)
      .describe("The largest request body accepted, in bytes."),
  })
  .prefault({})
  .describe("Where the warden listens.");

/** The largest message a front door passes to a cell; what the default is measured against is in the README. */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024;

const limitsSchema = z
  .strictObject({
    // Bounded so a message always fits a protocol frame (8 MiB) with room for JSON escapes.
    max_message_bytes: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(4 * 1024 * 1024, "must be at most 4194304 bytes")
      .default(DEFAULT_MAX_MESSAGE_BYTES)
      .describe(
        "The largest chat message, in UTF-8 bytes, any front door (HTTP, OpenAI endpoint, WebSocket, Telegram) " +
          "takes; a larger one is refused with an error naming this limit, before it reaches the cell. A request " +
          "body is also held to [server] body_limit.",
      ),
  })
  .prefault({})
  .describe("Limits on what users send.");

const cellsSchema = z
  .strictObject({
    backend: z
      .enum(CELL_BACKENDS, `must be one of ${CELL_BACKENDS.join(", ")}`)
      .default("auto")
      .describe(
        `What runs each user's agent: ${CELL_BACKENDS.join(" | ")}. auto picks the strongest isolation this host offers.`,
      ),
    allow_tcg: aBoolean()
      .default(false)
      .describe("Let auto pick microVMs without hardware virtualisation (software-emulated, slow)."),
    allow_process: aBoolean()
      .default(false)
      .describe(
        "Let auto fall back to plain processes, which isolate nothing. Naming a backend in backend is already that choice.",
      ),
    idle_stop_minutes: aNumber()
      .min(0, "must be at least 0")
      .default(15)
      .describe(
        "Stop a user's cell after this long without traffic (0 = keep running); it starts again on the next use.",
      ),
    suspend_idle: aBoolean()
      .default(true)
      .describe(
        "microVM cells whose image can resume them are saved to disk when idle (their memory, about 130-180 MiB, " +
          "beside the brain) and resume where they were on the next use, in under a second, instead of booting again.",
      ),
    suspended_keep_days: aNumber()
      .positive("must be more than 0")
      .default(7)
      .describe("A suspended cell's save older than this is deleted; that cell boots on its next use."),
    pool_size: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(64, "must be at most 64")
      .default(1)
      .describe(
        "Blank cells kept started, so a user's first message (or the first after an idle stop) skips the cell's " +
          "start; each waiting cell holds about 90 MiB (0 = off). Only where cells can start blank (bwrap under a " +
          "root warden); elsewhere cells start cold.",
      ),
    kernel: hostPath.optional().meta({
      description: "The cell image's kernel; when absent, the one built into IRONCLAW_HOME/images/.",
      examples: ["/opt/ironclaw/images/vmlinuz"],
    }),
    initramfs: hostPath.optional().meta({
      description: "The cell image's initramfs; when absent, the one built into IRONCLAW_HOME/images/.",
      examples: ["/opt/ironclaw/images/initramfs.cpio.gz"],
    }),
    rootfs: hostPath.optional().meta({
      description:
        "The cell image's read-only root file system; when absent, the one built into IRONCLAW_HOME/images/.",
      examples: ["/opt/ironclaw/images/rootfs.ext4"],
    }),
  })
  .prefault({})
  .describe("The cells the agents run in.");

const storageSchema = z
  .strictObject({
    home: hostPath.optional().meta({
      description:
        "Where the warden keeps its state; when absent, the IRONCLAW_HOME environment variable, else ~/.ironclaw.",
      examples: ["/var/lib/ironclaw"],
    }),
    users_dir: hostPath
      .default("users")
      .describe("Where users' brains live; a relative path is read from home."),
  })
  .prefault({})
  .describe("Where the warden keeps its files.");

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
    enabled: aBoolean().default(true).describe("false keeps the bot's settings here without running it."),
    token: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The bot's token from @BotFather, inline; or name the variable holding it in token_env.",
        examples: ["123456:ABC-DEF"],
      }),
    token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the bot's token.",
      examples: ["TELEGRAM_BOT_TOKEN"],
    }),
    secret_token: aString()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
      .optional()
      .meta({
        description:
          "The secret Telegram sends with every webhook call, inline; or name its variable in secret_token_env. " +
          "When neither is given the warden makes one at each start and registers the webhook itself, which needs " +
          "[server] public_url.",
        examples: ["a-long-random-string"],
      }),
    secret_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the webhook secret.",
      examples: ["TELEGRAM_WEBHOOK_SECRET"],
    }),
    api_base_url: httpUrl
      .default("https://api.telegram.org")
      .describe("The Bot API server: Telegram's, or a self-hosted one."),
    bot: nameToken("a bot name", "family")
      .default("default")
      .describe("The bot's name in its webhook URL: POST /channels/telegram/<bot>."),
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

/**
 * A channel's secrets, each given inline or by the variable its `_env` key names: never both, and one of the two
 * when the channel is enabled.
 */
function checkSecretPairs(
  c: Record<string, unknown> & { enabled: boolean },
  ctx: z.RefinementCtx,
  pairs: ReadonlyArray<readonly [string, string, SecretNeed?]>,
): void {
  for (const [inline, env, need] of pairs) {
    if (c[inline] !== undefined && c[env] !== undefined)
      ctx.addIssue({ code: "custom", path: [env], message: `give ${inline} or ${env}, not both`, input: c });
    else if (c.enabled && need?.optional !== true && c[inline] === undefined && c[env] === undefined)
      ctx.addIssue({
        code: "custom",
        path: [inline],
        message: `is required (or ${env}) when enabled${need?.unless ? `, unless ${need.unless}` : ""}`,
        input: c,
      });
  }
}

/** When a secret pair may be left out: always (`optional`), or the case its message names (`unless`). */
interface SecretNeed {
  optional?: boolean;
  unless?: string;
}

/**
 * A Slack app (seed 003 §16.1) over the Events API: Slack calls POST /channels/slack/<bot> with each event and
 * slash command, signed with the app's signing secret (X-Slack-Signature, v0 HMAC-SHA256 over the timestamp and
 * the raw body); the bot token posts the answers (chat.postMessage). Or over Socket Mode, for a warden Slack
 * cannot reach: with an app-level token the warden opens the connection itself and needs no signing secret.
 * Every token stays on the host.
 */
export const slackBotSchema = z
  .strictObject({
    enabled: aBoolean().default(true).describe("false keeps the app's settings here without running it."),
    bot_token: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description:
          "The app's bot token (xoxb-…), inline; or name the variable holding it in bot_token_env.",
        examples: ["xoxb-1234-5678-abcdef"],
      }),
    bot_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the bot token.",
      examples: ["SLACK_BOT_TOKEN"],
    }),
    signing_secret: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description:
          "The app's signing secret (Basic Information in the app's settings), inline; or name its variable in " +
          "signing_secret_env. Every request Slack sends is checked against it; an unsigned one is refused.",
        examples: ["8f742231b10e8888abcd99yyyzzz85a5"],
      }),
    signing_secret_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the signing secret.",
      examples: ["SLACK_SIGNING_SECRET"],
    }),
    app_token: aString()
      .regex(/^xapp-\S+$/, "must be an app-level token: xapp-…")
      .optional()
      .meta({
        description:
          "An app-level token (xapp-…, scope connections:write) turns on Socket Mode: the warden connects to " +
          "Slack instead of Slack calling it, so it needs no public URL and no signing secret. Inline; or name " +
          "its variable in app_token_env.",
        examples: ["xapp-1-A0123-4567-abcdef"],
      }),
    app_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the app-level token (Socket Mode).",
      examples: ["SLACK_APP_TOKEN"],
    }),
    api_base_url: httpUrl
      .default("https://slack.com/api")
      .describe(
        "Slack's Web API, where answers are posted (chat.postMessage) and Socket Mode connections opened.",
      ),
    bot: nameToken("an app name", "team")
      .default("default")
      .describe("The app's name in its request URL: POST /channels/slack/<bot>."),
    slash_command: aString()
      .regex(/^\/[a-z0-9_-]{1,31}$/, "must be / and 1-31 lowercase letters, digits, _ or - (Slack's rule)")
      .default("/ironclaw")
      .describe(
        "The slash command the app defines (its request URL the same as the events'): /ironclaw pair <code>, " +
          "/ironclaw new, /ironclaw feedback <text>… in the app's direct messages.",
      ),
  })
  .superRefine((c, ctx) =>
    checkSecretPairs(c, ctx, [
      ["bot_token", "bot_token_env"],
      ["app_token", "app_token_env", { optional: true }],
      // Socket Mode's events come over the warden's own connection: nothing arrives to be checked.
      c.app_token === undefined && c.app_token_env === undefined
        ? [
            "signing_secret",
            "signing_secret_env",
            { unless: "app_token or app_token_env is given (Socket Mode)" },
          ]
        : ["signing_secret", "signing_secret_env", { optional: true }],
    ]),
  );
export type SlackBotConfig = z.output<typeof slackBotSchema>;

/**
 * WhatsApp through Meta's official Cloud API (seed 003 §16.1): Meta calls GET /channels/whatsapp/<bot> once to
 * verify the webhook (hub.verify_token) and POST with each message, signed with the app secret
 * (X-Hub-Signature-256 over the raw body); the access token sends the answers. All three stay on the host.
 */
export const whatsappBotSchema = z
  .strictObject({
    enabled: aBoolean().default(true).describe("false keeps the number's settings here without running it."),
    phone_number_id: aString()
      .regex(/^\d{1,30}$/, "must be the digits of the number's id in the Cloud API (not the phone number)")
      .optional()
      .meta({
        description: "The Cloud API's id of the business phone number the assistant answers on.",
        examples: ["106540352242922"],
      }),
    access_token: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description:
          "A system user's access token, inline; or name the variable holding it in access_token_env.",
        examples: ["EAAG..."],
      }),
    access_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the access token.",
      examples: ["WHATSAPP_ACCESS_TOKEN"],
    }),
    app_secret: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description:
          "The Meta app's secret, inline; or name its variable in app_secret_env. Every notification is checked " +
          "against it (X-Hub-Signature-256); an unsigned one is refused.",
        examples: ["6e0f..."],
      }),
    app_secret_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the app secret.",
      examples: ["WHATSAPP_APP_SECRET"],
    }),
    verify_token: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description:
          "The token you give Meta when subscribing the webhook, inline; or its variable in verify_token_env.",
        examples: ["a-long-random-string"],
      }),
    verify_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the webhook's verify token.",
      examples: ["WHATSAPP_VERIFY_TOKEN"],
    }),
    api_base_url: httpUrl
      .default("https://graph.facebook.com/v21.0")
      .describe("The Graph API, versioned, where answers are sent (<base>/<phone_number_id>/messages)."),
    bot: nameToken("a number's name", "home")
      .default("default")
      .describe("The number's name in its webhook URL: /channels/whatsapp/<bot>."),
    notice_template: aString()
      .regex(/^[a-z0-9_]{1,512}$/, "must be a template name: lowercase letters, digits and _")
      .optional()
      .meta({
        description:
          "An approved message template with one body parameter, for notices outside WhatsApp's 24-hour window " +
          "(a cron job's result, a budget alert); without one such notices are not sent, and the log says so.",
        examples: ["assistant_notice"],
      }),
    template_language: aString()
      .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, "must be a language code like en or en_US")
      .default("en_US")
      .describe("The language of notice_template."),
  })
  .superRefine((c, ctx) => {
    checkSecretPairs(c, ctx, [
      ["access_token", "access_token_env"],
      ["app_secret", "app_secret_env"],
      ["verify_token", "verify_token_env"],
    ]);
    if (c.enabled && c.phone_number_id === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["phone_number_id"],
        message: "is required when enabled",
        input: c,
      });
  });
export type WhatsappBotConfig = z.output<typeof whatsappBotSchema>;

/**
 * A Discord application (seed 003 §16.1) over its interactions endpoint: Discord calls POST
 * /channels/discord/<bot> with each slash command, signed with the application's Ed25519 key (X-Signature-Ed25519
 * over the timestamp and the raw body, checked with the public key); the bot token posts the answers. With
 * `gateway` the warden also holds the bot's gateway connection, for plain DMs and mentions in servers.
 */
export const discordBotSchema = z
  .strictObject({
    enabled: aBoolean()
      .default(true)
      .describe("false keeps the application's settings here without running it."),
    application_id: aString()
      .regex(/^\d{5,30}$/, "must be the application's id: digits")
      .optional()
      .meta({
        description: "The application's id (General Information).",
        examples: ["1234567890123456789"],
      }),
    public_key: aString()
      .regex(/^[0-9a-f]{64}$/, "must be the application's public key: 64 hex digits")
      .optional()
      .meta({
        description:
          "The application's public key (General Information): every interaction sent to the interactions URL is " +
          "checked against it. Not needed with gateway = true and no interactions URL.",
        examples: ["e3c0c4f2b1a0d9e8f7a6b5c4d3e2f1a0e3c0c4f2b1a0d9e8f7a6b5c4d3e2f1a0"],
      }),
    bot_token: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The bot's token, inline; or name the variable holding it in bot_token_env.",
        examples: ["MTIz.abc.def"],
      }),
    bot_token_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the bot token.",
      examples: ["DISCORD_BOT_TOKEN"],
    }),
    api_base_url: httpUrl
      .default("https://discord.com/api/v10")
      .describe("Discord's HTTP API, versioned, where answers are posted and the commands registered."),
    bot: nameToken("an application's name", "guild")
      .default("default")
      .describe("The application's name in its interactions URL: POST /channels/discord/<bot>."),
    gateway: aBoolean()
      .default(false)
      .describe(
        "true connects the bot to Discord's gateway, so a DM to it is a turn and a mention of it in a server " +
          "is answered there (to paired users); without an interactions URL its slash commands come that way " +
          "too. Needs the Message Content intent enabled in the Developer Portal.",
      ),
  })
  .superRefine((c, ctx) => {
    checkSecretPairs(c, ctx, [["bot_token", "bot_token_env"]]);
    if (c.enabled && c.application_id === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["application_id"],
        message: "is required when enabled",
        input: c,
      });
    // The key checks the interactions URL's requests; over the gateway interactions come on the bot's connection.
    if (c.enabled && c.public_key === undefined && !c.gateway)
      ctx.addIssue({
        code: "custom",
        path: ["public_key"],
        message: "is required when enabled, unless gateway = true",
        input: c,
      });
  });
export type DiscordBotConfig = z.output<typeof discordBotSchema>;

/**
 * GitHub for the agent's GitHub tools (issue #38): the warden calls it with each user's own GITHUB_TOKEN secret,
 * which never enters a cell. A GitHub Enterprise Server is reached by its API URL.
 */
const githubIntegrationSchema = z
  .strictObject({
    base_url: aString()
      .refine((v) => URL.canParse(v) && new URL(v).protocol === "https:", "must be an https:// URL")
      .default("https://api.github.com")
      .meta({
        description: "GitHub's REST API; a GitHub Enterprise Server's is https://HOST/api/v3.",
        examples: ["https://github.example.com/api/v3"],
      }),
    timeout_ms: aNumber()
      .int("must be an integer")
      .min(1000, "must be at least 1000 ms")
      .max(120_000, "must be at most 120000 ms")
      .default(30_000)
      .describe("How long one GitHub call may take, in milliseconds."),
  })
  .prefault({})
  .describe("The GitHub tools: the API they call with each user's GITHUB_TOKEN secret.");

/**
 * A CalDAV server for the agent's calendar tools (issue #38): the warden calls it as each user, with their own
 * CALDAV_PASSWORD secret, which never enters a cell. No URL, no calendar tools.
 */
const calendarIntegrationSchema = z
  .strictObject({
    url: aString()
      .refine((v) => URL.canParse(v) && new URL(v).protocol === "https:", "must be an https:// URL")
      .optional()
      .meta({
        description:
          "The CalDAV server (its root or a user's principal URL); unset, the agent has no calendar tools.",
        examples: ["https://cal.example.org/"],
      }),
    username: aString()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .default("{user}")
      .describe("The CalDAV user name the warden logs in as; {user} stands for the IronClaw user's id."),
    timeout_ms: aNumber()
      .int("must be an integer")
      .min(1000, "must be at least 1000 ms")
      .max(120_000, "must be at most 120000 ms")
      .default(30_000)
      .describe("How long one CalDAV request may take, in milliseconds."),
  })
  .prefault({})
  .describe("The calendar tools: the CalDAV server they reach with each user's CALDAV_PASSWORD secret.");

const mailHost = aString().refine(isHostName, "must be a host name like mail.example.org");
const mailPort = (port: number) =>
  aNumber()
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(65_535, "must be at most 65535")
    .default(port);

/**
 * The user's mail for the agent's mail tools (issue #38): IMAP to search, read and keep drafts, SMTP to send what
 * the person confirmed, both over TLS, logged in with each user's MAIL_PASSWORD secret, which never enters a cell.
 * No imap_host, no mail tools.
 */
const mailIntegrationSchema = z
  .strictObject({
    imap_host: mailHost.optional().meta({
      description: "The IMAP server (TLS from the first byte); unset, the agent has no mail tools.",
      examples: ["imap.example.org"],
    }),
    imap_port: mailPort(993).describe("The IMAP server's TLS port."),
    smtp_host: mailHost.optional().meta({
      description: "The SMTP server that sends confirmed mail; when absent, imap_host.",
      examples: ["smtp.example.org"],
    }),
    smtp_port: mailPort(465).describe(
      "The SMTP server's port: 465 with smtp_security tls, 587 with starttls.",
    ),
    smtp_security: z
      .enum(["tls", "starttls"], "must be tls or starttls")
      .default("tls")
      .describe("tls: TLS from the first byte; starttls: upgraded before anything is sent (never plain)."),
    username: aString()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .default("{user}")
      .describe("The login name on both servers; {user} stands for the IronClaw user's id."),
    from: aString()
      .max(254, "must be at most 254 characters")
      .default("")
      .describe(
        "The From address of mail the agent drafts; {user} stands for the user's id; empty: the login name.",
      ),
    timeout_ms: aNumber()
      .int("must be an integer")
      .min(1000, "must be at least 1000 ms")
      .max(120_000, "must be at most 120000 ms")
      .default(30_000)
      .describe("How long one mail server may take to answer, in milliseconds."),
  })
  .prefault({})
  .describe("The mail tools: the IMAP and SMTP servers they reach with each user's MAIL_PASSWORD secret.");

// Strict, so that a misspelt or not yet supported channel is reported instead of silently ignored.
const integrationsSchema = z
  .strictObject({
    telegram: telegramBotSchema
      .optional()
      .describe("A Telegram bot: its users talk to their agents through it (seed 003 §16.1)."),
    slack: slackBotSchema
      .optional()
      .describe(
        "A Slack app: its workspace's users talk to their agents in its direct messages and mentions.",
      ),
    discord: discordBotSchema
      .optional()
      .describe(
        "A Discord application: its users talk to their agents with its slash commands in DMs, and with gateway " +
          "on in plain DMs and mentions.",
      ),
    whatsapp: whatsappBotSchema
      .optional()
      .describe("A WhatsApp number on Meta's Cloud API: its owner's own assistant, within Meta's terms."),
    github: githubIntegrationSchema,
    calendar: calendarIntegrationSchema,
    mail: mailIntegrationSchema,
  })
  .prefault({})
  .describe(
    "Chat channels users reach their agents through, and the services their tools reach; tokens stay on the host.",
  );

/**
 * A model provider the warden offers to cells (the model proxy). Keys stay on the host: inline here (this file
 * is the host's, mode 0600) or, preferably, in the environment variable named by api_key_env. A cell names a
 * provider; it can never name a URL or a variable.
 */
export const hostProviderSchema = z
  .strictObject({
    base_url: httpUrl.meta({
      description: "The provider's OpenAI-compatible API (Ollama, vLLM, llama.cpp server, OpenRouter…).",
      examples: ["http://127.0.0.1:11434/v1"],
    }),
    api_key_env: envVarName.optional().meta({
      description: "The environment variable of the warden that holds the key (preferred to api_key).",
      examples: ["OPENROUTER_API_KEY"],
    }),
    api_key: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The key itself, inline; give api_key or api_key_env, not both.",
        examples: ["sk-…"],
      }),
    models: z
      .array(aString().min(1, "must not be empty"))
      .default([])
      .describe("Models a cell may ask for; empty = any model the provider serves."),
  })
  .refine((p) => !(p.api_key !== undefined && p.api_key_env !== undefined), {
    path: ["api_key_env"],
    message: "give api_key or api_key_env, not both",
  });
export type HostProviderConfig = z.output<typeof hostProviderSchema>;

/** The host's egress policy for the browser tool's fetches, applied by the warden (seed 003 §11). */
const egressSchema = z
  .strictObject({
    policy: z
      .enum(["allow", "deny"], "must be one of allow, deny")
      .default("allow")
      .describe("allow: any public host but deny_hosts; deny: only allow_hosts."),
    allow_hosts: z
      .array(hostPattern)
      .default([])
      .describe('Hosts fetched under policy = "deny"; *.example.org covers its subdomains.'),
    deny_hosts: z.array(hostPattern).default([]).describe('Hosts refused under policy = "allow".'),
    allow_private: aBoolean()
      .default(false)
      .describe(
        "Let cells reach loopback, private and link-local addresses (local services); off unless you opt in.",
      ),
    max_bytes: aNumber()
      .int("must be an integer")
      .min(1024, "must be at least 1024 bytes")
      .max(64 * 1024 * 1024, "must be at most 67108864 bytes")
      .default(4 * 1024 * 1024)
      .describe("The largest response fetched, in bytes after decompression; the rest is cut off."),
    timeout_ms: aNumber()
      .int("must be an integer")
      .min(100, "must be at least 100 ms")
      .max(300_000, "must be at most 300000 ms")
      .default(20_000)
      .describe("How long one fetch may take, in milliseconds."),
    secret_uses_per_minute: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(100_000, "must be at most 100000")
      .default(120)
      .describe(
        "How many requests a cell may send with one of its user's secrets in a minute; more are refused.",
      ),
    proxy: aBoolean()
      .default(true)
      .describe(
        "Give each cell an HTTPS proxy (HTTPS_PROXY in its tools' environment) through the warden: requests to " +
          "hosts a user bound a secret to get the secret added here, other hosts this policy allows are " +
          "tunnelled, the rest refused. false: tools in a cell have no network at all.",
      ),
  })
  .prefault({})
  .describe("The browser tool's network: the warden fetches for the cells, under this policy.");

/** Provenance (seed 002): each brain's history and each chat turn's certificate, kept on this host. */
const attestSchema = z
  .strictObject({
    brain_history: aBoolean()
      .default(true)
      .describe(
        "false: a brain's changes are not recorded as states of its history (IRONCLAW_HOME/attest/history/), so " +
          "brain log, diff and restore show nothing new and a turn's certificate pins no brain state.",
      ),
    certify_turns: aBoolean()
      .default(true)
      .describe(
        "false: chat turns are answered without a certificate signed with the host key in the user's evidence " +
          "folder (IRONCLAW_HOME/attest/evidence/), which ironclaw verify and the certificates API read.",
      ),
  })
  .prefault({})
  .describe("Provenance: what the warden records of brains and chat turns, off the path of each reply.");

/**
 * Soul guard (seed 003 §11.3): which of the agent's changes to its prompt files (soul.md, identity.md,
 * instructions/*.md, profile persona files), measured against the version a person approved, are held for approval.
 */
const soulGuardSchema = z
  .strictObject({
    enabled: aBoolean().default(true).describe("false lets every change through unheld."),
    max_change_ratio: aNumber()
      .min(0, "must be between 0 and 1")
      .max(1, "must be between 0 and 1")
      .default(0.5)
      .describe(
        "Hold a change whose removed plus added lines hold more characters than this share of the file (0.5: a " +
          "paragraph as long as half the file added, or a quarter of it rewritten in place).",
      ),
    protected_words: z
      .array(aString().min(1, "must not be empty"))
      .default(["never", "must not", "do not", "don't", "always", "refuse", "safety", "privacy", "secret"])
      .describe("Hold a change that removes a line containing any of these words (case-insensitive)."),
    suspicious_patterns: z
      .array(aString().min(1, "must not be empty"))
      .optional()
      .meta({
        description:
          "Hold a change that adds a line matching any of these regular expressions (case-insensitive); when " +
          "absent, the built-in list of prompt-injection phrasing and encoded payloads.",
        examples: [["ignore (all|previous) instructions"]],
      }),
  })
  .prefault({})
  .describe(
    "The soul guard: the agent's changes to soul.md, identity.md, instructions/*.md and persona files, " +
      "measured against the version a person approved, are held for approval when they go too far.",
  );

const authSchema = z
  .strictObject({
    session_ttl_hours: aNumber()
      .min(0.1, "must be at least 0.1")
      .max(8760, "must be at most 8760")
      .default(168)
      .describe("How long a sign-in lasts, in hours (168: a week)."),
    login_link_ttl_minutes: aNumber()
      .min(1, "must be at least 1")
      .max(10080, "must be at most 10080")
      .default(60)
      .describe("How long a login link stays usable, in minutes; each link works once."),
    login_attempts_per_minute: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .default(10)
      .describe("Sign-in attempts allowed per minute before further ones are refused."),
  })
  .prefault({})
  .describe("Sign-in: sessions and login links.");

/** What a new user's brain starts with, so a host with a local model server works without editing brains. */
const newBrainsSchema = z
  .strictObject({
    provider: nameToken("a provider name", "openrouter")
      .optional()
      .meta({
        description:
          "The provider of a new brain's agent (a name from [providers]); when absent, openrouter.",
        examples: ["local"],
      }),
    model: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The model of a new brain's agent; when absent, IronClaw's default.",
        examples: ["llama3.1"],
      }),
    embedding_provider: nameToken("a provider name", "openrouter")
      .optional()
      .meta({
        description:
          "Embeddings from this provider's /v1/embeddings (through the warden) instead of the built-in embedder; " +
          "give embedding_model with it.",
        examples: ["local"],
      }),
    embedding_model: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({ description: "The embedding model of embedding_provider.", examples: ["nomic-embed-text"] }),
  })
  .refine((b) => (b.embedding_provider === undefined) === (b.embedding_model === undefined), {
    path: ["embedding_model"],
    message: "give embedding_provider and embedding_model together",
  })
  .prefault({})
  .describe("What a new user's brain starts with; brains that exist keep their own settings.");

const uiSchema = z
  .strictObject({
    enabled: aBoolean().default(true).describe("Serve the web UI."),
    path: aString()
      .regex(/^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*)?$/, "must be a URL path starting with / (like /ui)")
      .default("/ui")
      .describe("The URL path the UI is served at."),
  })
  .prefault({})
  .describe("The web UI.");

const usdPerMillionTokens = aNumber()
  .min(0, "must be at least 0 (US dollars per million tokens)")
  .max(10_000, "must be at most 10000 (US dollars per million tokens)");

/** A model's price in US dollars per million tokens, as the provider lists it. */
export const modelPriceSchema = z.strictObject({
  input: usdPerMillionTokens.meta({
    description: "Prompt tokens, in US dollars per million.",
    examples: [3],
  }),
  output: usdPerMillionTokens.meta({
    description: "Generated tokens, in US dollars per million.",
    examples: [15],
  }),
  cached_input: usdPerMillionTokens.optional().meta({
    description:
      "Prompt tokens the provider served from its cache, where it reports them; charged at input when absent.",
    examples: [0.3],
  }),
});
export type ModelPrice = z.output<typeof modelPriceSchema>;

const pricingSchema = z
  .record(
    providerName,
    z
      .record(
        aString()
          .min(1, "a model name must not be empty")
          .max(256, "a model name must be at most 256 characters"),
        modelPriceSchema,
      )
      .meta({ "x-key": '"<model>"' }),
  )
  .default({})
  .meta({
    description:
      "Model prices in US dollars per million tokens, adding to or overriding the dated table shipped with " +
      "IronClaw (`ironclaw budget prices`). Under a spend cap a model without a price is refused.",
    "x-key": "<provider>",
    examples: [{ local: { "llama3.1": { input: 0, output: 0 } } }],
  });

/** Spend caps: the caps themselves live in host.db (`ironclaw budget`); these are the rules they follow. */
const budgetsSchema = z
  .strictObject({
    timezone: ianaTimeZone
      .default("UTC")
      .describe(
        "When days and months turn over, for the host-wide cap and users without a time zone of their own.",
      ),
    allow_unpriced: aBoolean()
      .default(false)
      .describe(
        "Under a cap a model without a price is refused (its cost cannot be bounded); true lets it through at $0.",
      ),
    // Sent as max_tokens so the reservation is a true worst case.
    default_max_tokens: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(1_000_000, "must be at most 1000000")
      .default(4096)
      .describe(
        "The output a call without max_tokens may produce under a cap: reserved before the call and sent to the " +
          "provider as its max_tokens.",
      ),
    alert_percent: z
      .array(aNumber().int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100"))
      .default([50, 80, 100])
      .describe("Shares of a cap (percent) at which the user is told, each once per day or month."),
  })
  .prefault({})
  .describe("Spend caps: set them with `ironclaw budget set` (they live in host.db); these are their rules.");

/** Command (seed 000), hosted by the warden: its ledger is ledger.db under IRONCLAW_HOME. */
const commandSchema = z
  .strictObject({
    enabled: aBoolean()
      .default(true)
      .describe(
        "Host command: theaters, runs and orders under the warden's users, with the ledger at ledger.db.",
      ),
    workers: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(64, "must be at most 64")
      .default(1)
      .describe("Orders this warden works on at once; 0 leaves them to `ironclaw worker` processes."),
    lease_seconds: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1 second")
      .max(3600, "must be at most 3600 seconds")
      .default(60)
      .describe(
        "How long a worker's claim on an order holds without renewal. A live worker renews it every third of " +
          "this; a worker that died (killed, its host gone) loses the order after at most this long, and another " +
          "worker takes it over as the next attempt. Every worker and warden sharing a queue should use the same.",
      ),
    patrol_seconds: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(86_400, "must be at most 86400 seconds")
      .optional()
      .meta({
        description:
          "How often the duty officer patrols (stalled orders reissued, theaters checked, services probed); " +
          "when absent 30, 0 turns the timer off (POST /api/patrol still patrols).",
        examples: [30],
      }),
    audit_seconds: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(86_400, "must be at most 86400 seconds")
      .optional()
      .meta({
        description:
          "How often the sentinel, a process of its own beside the warden, audits the duty officer: CRITICAL " +
          "escalation and a restart when it has not patrolled for two patrol periods or ticks while overdue " +
          "orders pile up; when absent 60, 0 turns it off (POST /api/audit still audits). At least twice " +
          "patrol_seconds, so a dead duty officer is found within two audit periods.",
        examples: [60],
      }),
    stall_seconds: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1 second")
      .optional()
      .meta({
        description:
          "An order running longer than this, and longer than its own budget_seconds, is stalled and reissued " +
          "within its retry cap; when absent 900.",
        examples: [900],
      }),
    stale_worktree_seconds: aNumber()
      .int("must be an integer")
      .min(1, "must be at least 1 second")
      .optional()
      .meta({
        description:
          "An order at work whose branch got no commit for this long is reported; when absent 1800.",
        examples: [1800],
      }),
    min_free_disk_mb: aNumber()
      .int("must be an integer")
      .min(0, "must be at least 0")
      .optional()
      .meta({
        description:
          "Free space under IRONCLAW_HOME below which the disk is reported degraded; when absent 256.",
        examples: [256],
      }),
    provider: nameToken("a provider name", "openrouter")
      .optional()
      .meta({
        description: "The provider the CO plans and synthesizes with; when absent, [new_brains] provider.",
        examples: ["local"],
      }),
    model: aString()
      .min(1, "must not be empty")
      .optional()
      .meta({
        description: "The model the CO plans and synthesizes with; when absent, [new_brains] model.",
        examples: ["llama3.1"],
      }),
  })
  .superRefine((c, ctx) => {
    // The sentinel calls the duty officer dead after two patrol periods of silence and looks once per audit
    // period, so it finds a death within two audit periods only while an audit period is two patrols or more.
    const patrol = c.patrol_seconds ?? 30;
    const audit = c.audit_seconds ?? 60;
    if (patrol > 0 && audit > 0 && audit < 2 * patrol)
      ctx.addIssue({
        code: "custom",
        path: [c.audit_seconds === undefined ? "patrol_seconds" : "audit_seconds"],
        message: `audit_seconds (${audit}) must be at least twice patrol_seconds (${patrol}), so a duty officer that died is found within two audit periods`,
        input: c,
      });
  })
  .prefault({})
  .describe("Command: objectives planned into orders, each worked in its own git worktree.");

/** `ironclawd.toml`, the host daemon's config (seed 003 §10.1). */
export const ironclawdConfigSchema = z.strictObject({
  server: serverSchema,
  limits: limitsSchema,
  cells: cellsSchema,
  storage: storageSchema,
  integrations: integrationsSchema,
  ui: uiSchema,
  providers: z
    .record(providerName, hostProviderSchema)
    .default({})
    .meta({
      description:
        "Model providers offered to the agents in cells; keys stay here, or in the warden's environment. " +
        "OpenRouter is offered with the key in OPENROUTER_API_KEY when this table does not name it (seed 003 §9.1).",
      examples: [
        {
          local: { base_url: "http://127.0.0.1:11434/v1" },
          openrouter: { base_url: "https://openrouter.ai/api/v1", api_key_env: "OPENROUTER_API_KEY" },
        },
      ],
    }),
  egress: egressSchema,
  soul_guard: soulGuardSchema,
  auth: authSchema,
  new_brains: newBrainsSchema,
  pricing: pricingSchema,
  budgets: budgetsSchema,
  command: commandSchema,
  attest: attestSchema,
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
    "million tokens, [budgets] the rules of spend caps and [attest] brain history and turn certificates. " +
    "Every key has a default, so an empty file is a valid config.",
  format: "toml",
  schema: ironclawdConfigSchema,
});
