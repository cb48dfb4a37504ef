import type Database from "better-sqlite3";
import type { CommandService } from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import type { Logger } from "../core/index.js";
import type { AuditStore } from "./audit-store.js";
import type { ModelBudget } from "./budget/index.js";
import type { ChannelLinks } from "./channels/channel-links.js";
import type { DiscordChannel } from "./channels/discord.js";
import type { SlackChannel } from "./channels/slack.js";
import type { TelegramChannel } from "./channels/telegram.js";
import type { WhatsappChannel } from "./channels/whatsapp.js";
import type { ChatCore } from "./chat-core.js";
import type { ConversationStore } from "./conversations/index.js";
import type { EscalationBook } from "./escalations/index.js";
import type { ChatEvolution, EvolutionFeed } from "./evolution/index.js";
import type { Authenticator } from "./http/auth.js";
import type { LoginLockout } from "./http/login-lockout.js";
import type { MailSends } from "./integrations/index.js";
import type { LoginLinks } from "./login-links.js";
import type { WardenSecrets } from "./secrets/index.js";
import type { SettingsDesk } from "./settings/index.js";
import type { SkillStore } from "./skills/index.js";
import type { SoulStore, SoulWatch } from "./soul/index.js";
import type { UserStore } from "./user-store.js";
import type { WardenCells } from "./warden-cells.js";
import type { WebSessions } from "./web-sessions.js";

/**
 * The warden's services, built once by the daemon (daemon.ts). Only the route list (routes/index.ts) sees all of
 * them: each route module names the few it uses (`Pick<WardenContext, "budget" | "users">`).
 */
export interface WardenContext {
  home: string;
  config: IronclawdConfig;
  db: Database.Database;
  logger: Logger;
  users: UserStore;
  webSessions: WebSessions;
  loginLinks: LoginLinks;
  loginLockout: LoginLockout;
  audit: AuditStore;
  authenticator: Authenticator;
  conversations: ConversationStore;
  cells: WardenCells;
  chat: ChatCore;
  soulStore: SoulStore;
  soul: SoulWatch;
  channelLinks: ChannelLinks;
  /** Users' secrets, their bindings to hosts, the placeholders cells hold instead of them. */
  secrets: WardenSecrets;
  /** Users' installed skills, each pinned in their skills.lock to the hash a person approved. */
  skills: SkillStore;
  /** Mail the users' agents asked to send, waiting for the person's confirmation. */
  mailSends: MailSends;
  /** Changes to ironclawd.toml admins' agents proposed, applied only when their person confirms. */
  settings: SettingsDesk;
  /** Spend caps, prices and usage records of the model proxy. */
  budget: ModelBudget;
  telegramBots: Map<string, TelegramChannel>;
  slackBots: Map<string, SlackChannel>;
  whatsappBots: Map<string, WhatsappChannel>;
  discordBots: Map<string, DiscordChannel>;
  /** Command (theaters, runs, orders, the ledger) under the warden's users; undefined when [command] is off. */
  command: CommandService | undefined;
  /** Command's escalations with their acknowledgements; undefined when [command] is off. */
  escalations: EscalationBook | undefined;
  /** The evolution state (IRONCLAW_HOME/evolution): what users send and what the warden records itself. */
  evolution: EvolutionFeed;
  /** Conversations and ratings of their answers as evolution evidence. */
  chatEvolution: ChatEvolution;
  /** The backend cells run in and why it was chosen, for /health. */
  cellBackend: { name: string; reason: string; isolated: boolean };
  startedAt: number;
}
