import { z } from "zod";
import { aString, isJsonObject, type SlackBotConfig } from "../../contracts/index.js";
import { ConfigError, createLogger, type Logger } from "../../core/index.js";
import { channelSecret } from "./platform-call.js";
import type { SlackChannel, SlackChannelOptions, SlackOutcome } from "./slack.js";
import { SlackApi } from "./slack-api.js";
import { holdSocket, type SocketEnd, SocketKeeper, type SocketKeeperOptions } from "./socket-keeper.js";

// A Socket Mode frame (https://api.slack.com/apis/connections/socket-implement): `hello` when the connection
// works, `disconnect` when Slack wants a new one, and envelopes (events_api, slash_commands, interactive) that
// must be acknowledged by their envelope_id. Loose: Slack adds fields.
const frameSchema = z.looseObject({
  type: aString(),
  envelope_id: aString().optional(),
  payload: z.unknown().optional(),
  retry_attempt: z.unknown().optional(),
  retry_reason: z.unknown().optional(),
  reason: z.unknown().optional(),
});

/** apps.connections.open's errors that no retry mends: the token is wrong, revoked, or not an app-level one. */
const REFUSED = new Set([
  "invalid_auth",
  "not_authed",
  "token_revoked",
  "token_expired",
  "account_inactive",
  "not_allowed_token_type",
  "missing_scope",
]);

export interface SlackSocketModeOptions {
  channel: SlackChannel;
  /** The Web API with the app-level token (xapp-…). */
  api: SlackApi;
  logger?: Logger;
  /** Backoff tuning, for tests. */
  keeper?: Pick<SocketKeeperOptions, "initialDelayMs" | "maxDelayMs" | "random">;
  /** How often the connection is pinged to prove it alive (Socket Mode has no heartbeat of its own). 30 s. */
  pingIntervalMs?: number;
}

/**
 * A Slack app's events over Socket Mode, for a warden Slack cannot call: the warden opens the connection
 * (apps.connections.open with the app-level token, then the WebSocket it names), acknowledges each envelope the
 * moment it arrives, and hands its event or slash command to the same handling as the Events API's requests. A
 * `disconnect` is followed by a new connection at once, a dropped one after a backoff.
 */
export class SlackSocketMode {
  private readonly channel: SlackChannel;
  private readonly api: SlackApi;
  private readonly log: Logger;
  private readonly keeper: SocketKeeper;
  private readonly pingIntervalMs: number;

  constructor(options: SlackSocketModeOptions) {
    this.channel = options.channel;
    this.pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.api = options.api;
    this.log = options.logger ?? createLogger("slack");
    this.keeper = new SocketKeeper({
      ...options.keeper,
      name: `slack:${this.channel.name} Socket Mode`,
      logger: this.log,
      connect: (signal, ready) => this.connect(signal, ready),
    });
  }

  start(): void {
    this.keeper.start();
  }

  /** Closes the connection; resolves once it is closed and no new one will be opened. */
  stop(): Promise<void> {
    return this.keeper.stop();
  }

  private async connect(signal: AbortSignal, ready: () => void): Promise<SocketEnd> {
    const opened = await this.api.openConnection(signal);
    if (signal.aborted) return { next: "backoff", why: "stopped" };
    if ("failure" in opened) {
      const why = `apps.connections.open: ${opened.failure.reason}`;
      return REFUSED.has(opened.failure.reason) ? { next: "stop", why } : { next: "backoff", why };
    }
    return holdSocket({
      url: opened.url,
      signal,
      logger: this.log,
      pingIntervalMs: this.pingIntervalMs,
      onFrame: (data, session) => {
        const frame = frameSchema.safeParse(data);
        if (!frame.success) {
          this.log.warn({ bot: this.channel.name }, "a Socket Mode frame without a type was skipped");
          return;
        }
        const { type, envelope_id: envelopeId, payload, reason } = frame.data;
        if (type === "hello") {
          ready();
          this.log.info({ bot: this.channel.name }, "Slack Socket Mode connected");
        } else if (type === "disconnect") {
          session.end({
            next: "reconnect",
            why: `Slack asked for a new connection (${String(reason ?? "no reason")})`,
          });
        } else if (envelopeId !== undefined) {
          let outcome: SlackOutcome = { kind: "ignored" };
          try {
            outcome = this.take(type, payload);
          } catch (err) {
            // Acknowledged all the same: Slack would only deliver the malformed envelope again.
            this.log.warn({ err, bot: this.channel.name, type }, "a Socket Mode envelope was not taken");
          } finally {
            session.send({
              envelope_id: envelopeId,
              // A slash command's at-once answer rides on its acknowledgement, shown only to the person.
              ...(outcome.kind === "ephemeral"
                ? { payload: { response_type: "ephemeral", text: outcome.text } }
                : {}),
            });
          }
        }
      },
    });
  }

  /** An envelope's payload, handled as its HTTP request would be (a redelivered event_id runs once). */
  private take(type: string, payload: unknown): SlackOutcome {
    if (type === "events_api") return this.channel.handleEvent(payload);
    if (type === "slash_commands")
      return this.channel.handleSlashCommand(isJsonObject(payload) ? payload : {});
    return { kind: "ignored" };
  }
}

/**
 * Socket Mode for `[integrations.slack]` when it names an app-level token, or undefined when it does not. Throws
 * ConfigError naming the key when the variable is not set or does not hold an app-level token (xapp-…).
 */
export function createSlackSocketMode(
  config: SlackBotConfig,
  channel: SlackChannel,
  deps: { env?: NodeJS.ProcessEnv; logger?: Logger; api?: SlackChannelOptions["api"] },
): SlackSocketMode | undefined {
  if (config.app_token === undefined && config.app_token_env === undefined) return undefined;
  const token = channelSecret(
    "slack",
    "app_token",
    config.app_token,
    config.app_token_env,
    deps.env ?? process.env,
  );
  if (!token.startsWith("xapp-"))
    throw new ConfigError("ironclawd.toml", [
      {
        key: "integrations.slack.app_token_env",
        rule: `names ${config.app_token_env}, which does not hold an app-level token (xapp-…)`,
      },
    ]);
  const logger = deps.logger ?? createLogger("slack");
  return new SlackSocketMode({
    channel,
    api: new SlackApi({ ...deps.api, baseUrl: config.api_base_url, token, logger }),
    logger,
  });
}
