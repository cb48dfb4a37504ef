import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import { createBrainHistorySink } from "../attest/index.js";
import { type CellBackend, type CellStartSpec, createConfiguredBackend, usersDir } from "../cells/index.js";
import { CommandService, type CommandServiceOptions } from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import { createLogger, type Logger } from "../core/index.js";
import type { EgressDial } from "../egress/index.js";
import type { ProviderTuning } from "../providers/index.js";
import { cellBrainReader, OrderCertifier, runningWorkflowRef, TurnCertifier } from "./attest/index.js";
import { AuditStore } from "./audit-store.js";
import { ModelBudget, relayBudgetAlerts } from "./budget/index.js";
import { ChannelRouter } from "./channels/channel.js";
import { ChannelLinks } from "./channels/channel-links.js";
import { createDiscordChannel, type DiscordChannel } from "./channels/discord.js";
import { createDiscordGateway } from "./channels/discord-gateway.js";
import { createSlackChannel, type SlackChannel } from "./channels/slack.js";
import { createSlackSocketMode } from "./channels/slack-socket.js";
import { createTelegramChannel, type TelegramChannel } from "./channels/telegram.js";
import { createWhatsappChannel, type WhatsappChannel } from "./channels/whatsapp.js";
import { ChatCore } from "./chat-core.js";
import { HostedCommandGateway } from "./command-host-gateway.js";
import { commandNotifier } from "./command-notifier.js";
import { commandOversightOptions } from "./command-oversight.js";
import { createCommandDesk } from "./command-requests.js";
import { ConversationStore, forgetInConversations } from "./conversations/index.js";
import { CellProxies } from "./egress/index.js";
import { ackCommand, EscalationBook, EscalationRelay } from "./escalations/index.js";
import { ChatEvolution, EvolutionFeed, feedbackCommand, RunFeed } from "./evolution/index.js";
import { hostCommandOptions } from "./host-command.js";
import { prepareHome } from "./host-config.js";
import { openHostDb } from "./host-db.js";
import { HostProviders } from "./host-providers.js";
import { createAuthenticator } from "./http/auth.js";
import { LoginLockout } from "./http/login-lockout.js";
import { buildWardenServer } from "./http/server.js";
import { createHostIntegrations } from "./integrations/index.js";
import { LoginLinks } from "./login-links.js";
import { editBrainAsPerson, readBrainFile } from "./routes/index.js";
import { SecretKeyring, WardenSecrets } from "./secrets/index.js";
import { SentinelKeeper } from "./sentinel-keeper.js";
import {
  createSettingsRunner,
  HostVariables,
  proposalNotice,
  SettingsDesk,
  settingsCommands,
} from "./settings/index.js";
import { SkillStore } from "./skills/index.js";
import { checkSoulGuardConfig, SoulStore, SoulWatch } from "./soul/index.js";
import { UserStore } from "./user-store.js";
import { forgetWardenAddress, recordWardenAddress } from "./warden-address.js";
import { WardenCells } from "./warden-cells.js";
import type { WardenContext } from "./warden-context.js";
import { WebSessions } from "./web-sessions.js";

export interface WardenOptions {
  home: string;
  /** Override [server] bind / port (the CLI's --host / --port). Port 0 picks a free one. */
  host?: string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Tests: a given backend instead of the configured one, and extra cell start settings. */
  backend?: CellBackend;
  cellSpec?: Partial<CellStartSpec>;
  providerTuning?: ProviderTuning;
  /** Adjust the config after it is read (tests). */
  configure?: (config: IronclawdConfig) => IronclawdConfig;
  /**
   * How to start `ironclaw sentinel` (executable and arguments), which the warden then keeps running beside it to
   * audit command's duty officer every [command] audit_seconds. The CLI that starts the warden knows; without it
   * (a warden embedded in another program) audits happen only on POST /api/audit.
   */
  sentinel?: { command: readonly string[] };
  /** Tests: real host names (api.github.com) mapped to local servers, and their CA (see EgressDial). */
  egressDial?: EgressDial;
}

export interface Warden {
  url: string;
  /** A one-time link that signs the admin in to the UI. */
  loginUrl: string;
  /** Whom loginUrl signs in: the first admin (`admin`, made on first start, or the one `ironclaw setup` added). */
  adminId: string;
  context: WardenContext;
  server: FastifyInstance;
  /** Issues a fresh one-time login link for a user. */
  loginLink(userId: string): string;
  /** Stops accepting requests, stops every cell gracefully, closes the database. */
  close(): Promise<void>;
}

/** Starts ironclawd: IRONCLAW_HOME, host.db, the cell backend, the proxies, channels and the HTTP server. */
export async function startWarden(options: WardenOptions): Promise<Warden> {
  const givenEnv = options.env ?? process.env;
  const logger = options.logger ?? createLogger("ironclawd");
  const prepared = prepareHome(options.home);
  const config = options.configure ? options.configure(prepared.config) : prepared.config;
  if (prepared.created)
    logger.info(
      { home: options.home },
      "first start: wrote ironclawd.toml with every setting at its default",
    );
  checkSoulGuardConfig(config.soul_guard);
  const db = openHostDb(options.home);
  const audit = new AuditStore(db);
  const users = new UserStore(db);
  // Variables an admin pasted into the settings form stand in for the environment's, which wins where both set one.
  const variables = new HostVariables(db, new SecretKeyring(options.home));
  const env = { ...storedVariables(variables, logger), ...givenEnv };
  const webSessions = new WebSessions(db);
  const loginLinks = new LoginLinks(db);
  const conversations = new ConversationStore(db);
  const soulStore = new SoulStore(db, { audit: (entry) => audit.record(entry) });
  const channelLinks = new ChannelLinks(db);
  const budget = new ModelBudget({ db, config });
  const skills = new SkillStore({
    usersDir: usersDir(config, options.home),
    audit: (entry) => audit.record(entry),
  });
  const secrets = new WardenSecrets({
    db,
    home: options.home,
    audit: (entry) => audit.record(entry),
    logger,
    usesPerMinute: config.egress.secret_uses_per_minute,
    // Approved skills name the secrets they need and the hosts those may go to.
    skills,
  });
  // Calls that were in flight when an earlier warden died hold reservations nobody will settle.
  const recovered = budget.recover();
  if (recovered > 0)
    logger.warn({ calls: recovered }, "settled the model calls of a warden that died mid-call");

  const chosen = options.backend
    ? { backend: options.backend, choice: { backend: options.backend.name, reason: "given by the caller" } }
    : await createConfiguredBackend(config, { home: options.home, onWarning: (w) => logger.warn(w) });
  if (!chosen.backend.isolated) logger.warn("cells run in the process backend: NOT isolated from this host");
  const providers = new HostProviders(config, env, options.providerTuning ?? {});
  const isAdmin = (userId: string) => users.get(userId)?.admin === true;
  // Where people confirm proposals and paste secrets: known once the server listens.
  let uiBase = "";
  const settings = new SettingsDesk({
    home: options.home,
    db,
    isAdmin,
    variables,
    env: givenEnv,
    userExists: (userId) => users.get(userId) !== undefined,
    // A profile is written by its user's cell as a person's edit (soul guard, audit, brain history); the desk
    // is only asked once the context below exists.
    brains: {
      read: (userId, path) => readBrainFile(context, userId, path),
      write: (userId, path, text, why) =>
        editBrainAsPerson(context, userId, {
          path,
          content: text,
          by: why.by,
          cause: why.cause,
          detail: { proposal: why.proposal },
        }),
    },
    budget: { budget, users, audit },
    audit: (entry) => audit.record(entry),
    screenUrl: () => `${uiBase}${config.ui.path === "/" ? "" : config.ui.path}/#/settings`,
  });
  // The integration tools' calls, made here with each user's own credential; none of it enters a cell.
  const integrations = createHostIntegrations({
    config,
    secret: (userId, name) => secrets.store.get(userId, name),
    ...(options.egressDial ? { dial: options.egressDial } : {}),
    audit: (entry) => audit.record(entry),
    logger,
    // The warden's own settings, as proposals an admin's agent makes and the admin confirms.
    runners: [createSettingsRunner(settings, isAdmin)],
  });
  const cells = new WardenCells({
    backend: chosen.backend,
    usersDir: usersDir(config, options.home),
    config,
    providers,
    cellUidOf: (userId) => users.get(userId)?.cellUid,
    audit: (entry) => audit.record(entry),
    logger,
    budget,
    // Called during turns only, once `chat` below exists: a turn's certificate names the models it called.
    onModelCall: (call) => chat.noteModelCall(call),
    ...(options.cellSpec ? { spec: options.cellSpec } : {}),
    integrations,
    // Each cell's HTTPS proxy: its own CA, its user's placeholders, and the secrets added here, never in it.
    egress: new CellProxies({
      egress: config.egress,
      secrets,
      audit: (entry) => audit.record(entry),
      logger: logger.child({ part: "egress-proxy" }),
      ...(options.egressDial ? { dial: options.egressDial } : {}),
    }),
  });
  // Command's ledger and queue sit beside host.db; a ledger that cannot open stops the start like host.db would.
  const command = config.command.enabled
    ? await openCommand(
        db,
        hostCommandOptions({
          home: options.home,
          config,
          providers,
          budget,
          logger,
          workers: config.command.workers,
          users,
          audit,
          backend: chosen.backend,
        }),
      )
    : undefined;
  const workflowRef = runningWorkflowRef();
  // Each order command integrates certified with the host key, following the ledger off the orders' path.
  const orderCertifier = command
    ? new OrderCertifier({
        home: options.home,
        store: command.store,
        repoOf: async (theaterId) => (await command.theaters.require(theaterId)).repo_path,
        logger,
        workflowRef,
      })
    : undefined;
  const soul = new SoulWatch(soulStore, config.soul_guard, cells, logger);
  cells.guardModelCalls((userId, cell, request) => soul.checkModelCall(userId, cell, request));
  // Brains the host holds as directories (bwrap and process cells) are read whole after each change; disk images
  // (bwrap as root, microVMs), which the host never opens, as the user's running cell reports them.
  const brains = usersDir(config, options.home);
  const brainChanges = config.attest.brain_history
    ? createBrainHistorySink({
        home: options.home,
        brainDirOf: (userId) => `${brains}/${userId}/brain`,
        readBrain: cellBrainReader({ runningCell: (userId) => cells.running(userId), logger }),
        // Past the end of the turn that made the change; a person's next message is seconds away.
        delayMs: 250,
      })
    : undefined;
  // Conversations, ratings of answers and command runs feed evolution, off every reply's path.
  const evolution = new EvolutionFeed({ home: options.home, logger });
  const chatEvolution = new ChatEvolution(evolution, conversations);
  const runFeed = command ? new RunFeed({ store: command.store, feed: evolution, logger }) : undefined;
  const chat = new ChatCore({
    cells,
    conversations,
    soul,
    logger,
    evolution: chatEvolution,
    audit: (entry) => audit.record(entry),
    ...(brainChanges ? { brainChanges } : {}),
    // Each turn certified with the host key, which never leaves this process; an operator may turn it off.
    ...(config.attest.certify_turns
      ? { certifier: new TurnCertifier({ home: options.home, logger, workflowRef }) }
      : {}),
  });
  // The agent's command tool reaches the command this warden hosts, checked by the desk as the cell's user.
  if (command)
    cells.serveCommands(
      createCommandDesk({
        gateway: new HostedCommandGateway(command, commandNotifier(chat)),
        conversations,
        audit: (entry) => audit.record(entry),
        logger,
      }),
    );
  cells.onForgotten((userId, notice) => {
    forgetInConversations(userId, notice, { conversations, audit, logger });
    // The brain's history loses the words from every state it holds, and records the brain as it now is (a
    // forget asked outside a turn, from the memory inspector, changes the brain too).
    chat.brainForgot(userId, notice);
  });
  const escalations = command
    ? new EscalationBook({
        store: command.store,
        theaters: command.theaters,
        admins: () =>
          users
            .list()
            .filter((u) => u.admin)
            .map((u) => u.id),
      })
    : undefined;
  const router = new ChannelRouter({
    chat,
    links: channelLinks,
    logger,
    audit,
    maxMessageBytes: config.limits.max_message_bytes,
    commands: {
      feedback: feedbackCommand(chatEvolution, conversations),
      ...(escalations ? { ack: ackCommand(escalations, isAdmin) } : {}),
      ...settingsCommands(settings, isAdmin),
    },
  });
  // A proposal reaches its proposer's paired chats with its diff and the buttons to confirm or reject it.
  settings.proposed.on((proposal) => {
    const notice = proposalNotice(proposal, settings.screenUrl());
    router.notify(proposal.proposed_by, notice.text, undefined, notice.buttons);
  });
  // Escalations reach their owners' linked chats; the UI reads them from /api/escalations.
  const escalationRelay =
    command && escalations
      ? new EscalationRelay({ store: command.store, book: escalations, router, db, logger })
      : undefined;
  relayBudgetAlerts(budget, { router, users, audit });
  const telegramBots = new Map<string, TelegramChannel>();
  const telegram = config.integrations.telegram;
  // Without a configured secret the warden makes one and registers the webhook itself (needs public_url);
  // a webhook nobody can authenticate is never served.
  let registerWebhook: (() => Promise<void>) | undefined;
  if (telegram?.enabled) {
    const ownSecret = telegram.secret_token === undefined && telegram.secret_token_env === undefined;
    if (ownSecret && !config.server.public_url) {
      logger.error(
        "[integrations.telegram] is off: set secret_token_env (and give Telegram the same secret), or set [server] public_url so the warden registers the webhook with a secret of its own",
      );
    } else {
      const generatedSecret = ownSecret ? randomBytes(32).toString("base64url") : undefined;
      const bot = createTelegramChannel(telegram, {
        router,
        env,
        logger,
        ...(generatedSecret ? { generatedSecret } : {}),
      });
      telegramBots.set(bot.name, bot);
      if (ownSecret && config.server.public_url) {
        const hook = `${new URL(config.server.public_url).origin}/channels/telegram/${bot.name}`;
        registerWebhook = async () => {
          const done = await bot.registerWebhook(hook);
          if (done) logger.info({ webhook: hook }, "registered the Telegram webhook");
          else logger.error({ webhook: hook }, "could not register the Telegram webhook");
        };
      }
    }
  }

  // The channels' own connections to their platforms (Socket Mode, the gateway): opened once the warden serves,
  // closed before the router, so nothing new arrives while it drains.
  const sockets: Array<{ start(): void; stop(): Promise<void> }> = [];
  // Slack signs every request with the app's signing secret, or (Socket Mode) sends its events over a connection
  // the warden opens with the app-level token.
  const slackBots = new Map<string, SlackChannel>();
  if (config.integrations.slack?.enabled) {
    const app = createSlackChannel(config.integrations.slack, { router, env, logger });
    slackBots.set(app.name, app);
    const socket = createSlackSocketMode(config.integrations.slack, app, { env, logger });
    if (socket) sockets.push(socket);
  }
  const discordBots = new Map<string, DiscordChannel>();
  if (config.integrations.discord?.enabled) {
    const app = createDiscordChannel(config.integrations.discord, { router, env, logger });
    discordBots.set(app.name, app);
    const gateway = createDiscordGateway(config.integrations.discord, app, { env, logger });
    if (gateway) sockets.push(gateway);
  }
  const whatsappBots = new Map<string, WhatsappChannel>();
  if (config.integrations.whatsapp?.enabled) {
    const number = createWhatsappChannel(config.integrations.whatsapp, { router, env, logger });
    whatsappBots.set(number.name, number);
  }

  // The UI origins WebSocket upgrades and cookie-signed writes may come from; filled in once the port is known.
  const origins: string[] = [];
  const host = options.host ?? config.server.bind;
  const port = options.port ?? config.server.port;
  const loginLockout = new LoginLockout({ failuresPerMinute: config.auth.login_attempts_per_minute });
  const context: WardenContext = {
    home: options.home,
    config,
    db,
    logger,
    users,
    webSessions,
    loginLinks,
    loginLockout,
    audit,
    authenticator: createAuthenticator({ users, webSessions, lockout: loginLockout, origins }),
    conversations,
    cells,
    chat,
    soulStore,
    soul,
    channelLinks,
    secrets,
    skills,
    mailSends: integrations.mail,
    settings,
    budget,
    telegramBots,
    slackBots,
    whatsappBots,
    discordBots,
    command,
    escalations,
    evolution,
    chatEvolution,
    cellBackend: {
      name: chosen.backend.name,
      reason: chosen.choice.reason,
      isolated: chosen.backend.isolated,
    },
    startedAt: Date.now(),
  };
  const server = await buildWardenServer(context);
  let closing: Promise<void> | undefined;
  let sentinel: SentinelKeeper | undefined;
  const close = () => {
    closing ??= (async () => {
      // The server stops taking requests at once, but waits for those in flight; a turn stuck on a model call
      // would hold it forever, so the cells are stopped meanwhile (their turns end, their model calls settle).
      forgetWardenAddress(options.home);
      const serverClosed = server.close().catch(() => undefined);
      await escalationRelay?.stop();
      await Promise.all(sockets.map((socket) => socket.stop()));
      await router.close().catch(() => undefined);
      await cells.stopAll();
      await brainChanges?.settle();
      // After the records: a certificate pins the state its turn's record made.
      await chat.settleCertificates();
      await evolution.settle();
      // With the cells gone every turn has ended; a connection still open after a short grace (a client that
      // never finishes sending its request) is closed rather than waited for, so a stop takes seconds, not the
      // minute of the server's header timeout.
      const closedInTime = await Promise.race([
        serverClosed.then(() => true),
        sleep(CLOSE_GRACE_MS, false, { ref: false }),
      ]);
      if (!closedInTime) server.server.closeAllConnections();
      await serverClosed;
      await sentinel?.close();
      await orderCertifier?.close();
      await runFeed?.close();
      await evolution.settle();
      await command?.close();
      db.close();
    })();
    return closing;
  };
  try {
    await server.listen({ host, port });
  } catch (error) {
    await close();
    throw error;
  }
  const address = server.server.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${shown}:${boundPort}`;
  origins.push(
    url,
    `http://127.0.0.1:${boundPort}`,
    `http://localhost:${boundPort}`,
    `http://[::1]:${boundPort}`,
  );
  if (config.server.public_url) origins.push(new URL(config.server.public_url).origin);
  // For `ironclaw user login-link`, which runs apart from this process and would only know the configured port.
  try {
    recordWardenAddress(options.home, url);
  } catch (error) {
    logger.warn(
      { err: error, home: options.home },
      "the warden's address could not be recorded in IRONCLAW_HOME",
    );
  }

  void registerWebhook?.();
  for (const bot of telegramBots.values()) void bot.learnUsername();
  // Discord shows an application's slash commands only once they are registered with it.
  for (const app of discordBots.values()) void app.registerCommands();
  for (const socket of sockets) socket.start();
  const auditMs = commandOversightOptions(config).auditMs ?? 0;
  sentinel =
    command && options.sentinel && auditMs > 0
      ? new SentinelKeeper({
          command: options.sentinel.command,
          env: { ...env, IRONCLAW_HOME: options.home },
          dutyOfficer: command.oversight.dutyOfficer,
          logger,
        })
      : undefined;
  sentinel?.start();
  // From the ledger's start: orders integrated while no warden was up are certified now.
  orderCertifier?.start();
  // From the ledger's start too: runs created or ended while no warden was up are recorded now, each once.
  runFeed?.start();
  // Runs a stopped warden was carrying go on from where the ledger left them, instead of staying OPEN.
  if (command)
    command.runs.resumeOpen().then(
      (runs) => runs.length > 0 && logger.info({ runs: runs.length }, "open runs taken up again"),
      (error: unknown) => logger.warn({ err: error }, "the ledger's open runs could not be listed"),
    );
  // In the background: the warden serves at once, and a user who comes before the pool is full starts cold.
  void cells.prewarm();
  const admin = users.ensureAdmin();
  const linkBase = config.server.public_url ? new URL(config.server.public_url).origin : url;
  uiBase = linkBase;
  const loginLink = (userId: string) =>
    `${linkBase}/login?code=${loginLinks.issue(userId, config.auth.login_link_ttl_minutes * 60_000)}`;
  logger.info(
    { url, backend: chosen.backend.name, reason: chosen.choice.reason, providers: providers.names() },
    "ironclawd is serving",
  );
  return { url, loginUrl: loginLink(admin.id), adminId: admin.id, context, server, loginLink, close };
}

async function openCommand(db: { close(): void }, options: CommandServiceOptions): Promise<CommandService> {
  try {
    return await CommandService.open(options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The settings form's variables; a store that cannot be read (a changed secrets.key) is logged, not fatal. */
function storedVariables(variables: HostVariables, logger: Logger): Record<string, string> {
  try {
    return variables.values();
  } catch (err) {
    logger.error(
      { err },
      "the variables pasted into the settings form cannot be read; starting without them",
    );
    return {};
  }
}

/** How long a stopping warden waits for connections that are still open once its cells have stopped. */
const CLOSE_GRACE_MS = 2_000;
