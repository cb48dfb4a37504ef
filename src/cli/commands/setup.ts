import { existsSync } from "node:fs";
import { join } from "node:path";
import { CELL_BACKENDS, type CellBackendSetting } from "../../contracts/index.js";
import { ironclawHome } from "../../core/index.js";
import {
  AuditStore,
  assertUserName,
  ChannelLinks,
  HOST_CONFIG_FILE,
  HOST_DB_FILE,
  hostEnvFile,
  openHostDb,
  readHostConfigValues,
  readHostEnv,
  UserStore,
  writeHostConfig,
  writeHostEnv,
} from "../../warden/index.js";
import { type CliIo, UsageError } from "../command.js";
import { defineCommand } from "../command-spec.js";
import { isTerminal } from "../hidden-prompt.js";
import { readInput } from "../read-input.js";
import { installService, servicePlace } from "./service.js";
import { chooseBackend } from "./setup-backend.js";
import { type Prompter, scriptedPrompter, terminalPrompter } from "./setup-prompter.js";
import {
  baseUrlRule,
  envNameRule,
  PROVIDER_CHOICES,
  type ProviderSetup,
  setUpProvider,
} from "./setup-provider.js";
import { pairingLinkText, setUpTelegram, type TelegramSetup } from "./setup-telegram.js";
import { record } from "./setup-values.js";

/** How long the pairing code the wizard prints works: long enough to start the warden and reach for a phone. */
const PAIRING_TTL_MS = 60 * 60_000;

export const setupCommand = defineCommand({
  name: "setup",
  summary: "first-run wizard: provider and key (tested), models, first user, Telegram, cell backend, service",
  description: `Asks, on a terminal, for what a new host needs and writes it: the model provider (a local Ollama, vLLM,
llama.cpp or LM Studio found on its usual port, OpenRouter, OpenAI, Anthropic or any OpenAI-compatible server) with
its key, tested with one real call; each agent's model; the first (admin) user; optionally a Telegram bot, whose
pairing link is shown as a QR code; the cell backend, with what this host can run and the command that fixes each
missing piece; and the systemd service. Defaults are shown in [brackets] (on an existing home, its current
settings); Enter accepts one, "skip" passes an optional step. Nothing is written until the last answer.
ironclawd.toml is written with comments (the old one kept as ironclawd.toml.bak-<time>); keys and tokens go only
into IRONCLAW_HOME/ironclawd.env (0600), which no cell mounts. With --yes every question takes its default: what
the flags give, what the home holds, or the wizard's choice; a key is piped on stdin with --key-stdin.`,
  options: [
    {
      name: "yes",
      short: "y",
      type: "boolean",
      description: "ask nothing: take every default (for scripts)",
    },
    { name: "provider", type: "string", choices: PROVIDER_CHOICES, description: "the model provider" },
    { name: "base-url", type: "string", valueName: "url", description: "its OpenAI-compatible API root" },
    {
      name: "api-key-env",
      type: "string",
      valueName: "NAME",
      description: "the variable holding its key (default per provider, like OPENROUTER_API_KEY)",
    },
    {
      name: "key-stdin",
      type: "boolean",
      description: "read the provider's key from stdin (it goes into ironclawd.env, never a command line)",
    },
    { name: "model", type: "string", valueName: "id", description: "the personal agent's model" },
    { name: "command-model", type: "string", valueName: "id", description: "the model command plans with" },
    { name: "skip-test", type: "boolean", description: "write the provider without the one test call" },
    { name: "user", type: "string", valueName: "name", description: "create this admin user" },
    { name: "backend", type: "string", choices: CELL_BACKENDS, description: "the cell backend" },
    {
      name: "telegram-token-env",
      type: "string",
      valueName: "NAME",
      description: "link the Telegram bot whose token this variable holds",
    },
    {
      name: "telegram-api-url",
      type: "string",
      valueName: "url",
      description: "the Bot API server (default Telegram's)",
    },
    { name: "public-url", type: "string", valueName: "url", description: "[server] public_url (https)" },
    { name: "service", type: "boolean", description: "install the systemd service at the end" },
    { name: "no-service", type: "boolean", description: "do not install the service" },
    {
      name: "unit-dir",
      type: "string",
      valueName: "dir",
      description: "where the service's unit goes (see ironclaw service install)",
    },
  ],
  async run({ options }, io) {
    checkFlags(options);
    if (!options.yes && !isTerminal(io.stdin))
      throw new UsageError(
        "asks its questions on a terminal; without one, give --yes and the flags it needs (see --help)",
        { showUsage: false },
      );
    let stdinKey: string | undefined;
    if (options["key-stdin"]) {
      if (isTerminal(io.stdin))
        throw new UsageError("--key-stdin: pipe the key in; on a terminal, setup asks for it without echo", {
          showUsage: false,
        });
      stdinKey = (await readInput("-", io.stdin)).trim();
      if (stdinKey === "") throw new UsageError("--key-stdin: stdin held no key", { showUsage: false });
    }
    const p = options.yes ? scriptedPrompter(io) : terminalPrompter(io);
    return runSetup(p, io, options, stdinKey);
  },
});

interface SetupFlags {
  yes: boolean;
  provider?: (typeof PROVIDER_CHOICES)[number] | undefined;
  "base-url"?: string | undefined;
  "api-key-env"?: string | undefined;
  model?: string | undefined;
  "command-model"?: string | undefined;
  "skip-test": boolean;
  user?: string | undefined;
  backend?: CellBackendSetting | undefined;
  "telegram-token-env"?: string | undefined;
  "telegram-api-url"?: string | undefined;
  "public-url"?: string | undefined;
  service: boolean;
  "no-service": boolean;
  "unit-dir"?: string | undefined;
}

/** Every flag's rule, checked before a question is asked or a file touched. */
function checkFlags(o: SetupFlags): void {
  const bad = (flag: string, rule: string | undefined) => {
    if (rule) throw new UsageError(`--${flag}: ${rule}`, { showUsage: false });
  };
  for (const flag of ["base-url", "telegram-api-url", "public-url"] as const)
    if (o[flag] !== undefined) bad(flag, baseUrlRule(o[flag]));
  for (const flag of ["api-key-env", "telegram-token-env"] as const)
    if (o[flag] !== undefined) bad(flag, envNameRule(o[flag]));
  for (const flag of ["model", "command-model"] as const)
    if (o[flag] !== undefined && o[flag].trim() === "") bad(flag, "must not be empty");
  if (o.user !== undefined) bad("user", userNameRule(o.user));
  if (o.service && o["no-service"]) bad("service", "give --service or --no-service, not both");
}

function userNameRule(name: string): string | undefined {
  try {
    assertUserName(name);
    return undefined;
  } catch (error) {
    return (error as { rule?: string }).rule ?? (error as Error).message;
  }
}

async function runSetup(
  p: Prompter,
  io: CliIo,
  options: SetupFlags,
  stdinKey: string | undefined,
): Promise<number> {
  const home = ironclawHome(io.env);
  const existing = readHostConfigValues(home);
  const fileEnv = readHostEnv(home);
  const known = existsSync(join(home, HOST_CONFIG_FILE));
  p.say(`IronClaw setup for ${home}${known ? " (its current settings are the defaults)" : ""}`);
  if (p.interactive)
    p.say(
      'Enter accepts the value in [brackets]; "skip" passes an optional step; Ctrl-C stops. Nothing is written until the end.',
    );

  p.say("\n1. Model provider");
  const provider = await setUpProvider(p, { flags: options, stdinKey, existing, env: io.env, fileEnv });

  p.say("\n2. First user");
  const users = listUsers(home);
  if (users.length > 0) p.say(`  users already: ${users.join(", ")}`);
  const user = await p.text({
    prompt:
      users.length > 0
        ? "Name of another admin user to create (skip: none)"
        : "Name of the first user (an admin)",
    fallback: options.user ?? (users.length > 0 ? undefined : defaultUserName(io.env)),
    optional: users.length > 0,
    check: (name) => userNameRule(name) ?? (users.includes(name) ? `${name} exists already` : undefined),
    flag: "--user",
  });
  if (user !== undefined && users.includes(user))
    throw new UsageError(`--user: ${user} exists already`, { showUsage: false });

  p.say("\n3. Cell backend");
  const currentBackend = record(existing.cells).backend as CellBackendSetting | undefined;
  const backend = await chooseBackend(p, options.backend, currentBackend);

  p.say("\n4. Messaging (optional)");
  const telegram = await setUpTelegram(p, { flags: options, existing, env: io.env, fileEnv });

  p.say("\n5. Service");
  // Offered by default where systemd runs and reads the unit; --service asks for it anywhere.
  const service =
    !options["no-service"] &&
    (await p.confirm(
      "Install the systemd service (ironclaw service install)?",
      options.service || servicePlace(io, { user: false }).managed,
    ));

  const written = writeSettings(home, existing, provider, backend, telegram);
  p.say(`\nWrote ${written.file}${written.backup ? ` (the old one is ${written.backup})` : ""}`);
  if (written.envNames.length > 0) p.say(`Wrote ${written.envFile} (0600): ${written.envNames.join(", ")}`);
  const { token, pairingFor } = await addUser(home, user, users);
  if (user !== undefined && token) {
    p.say(`Added admin user ${user}; API token (shown once, only its hash is kept):`);
    p.say(`  ${token}`);
  }
  if (telegram && pairingFor) showPairing(p, home, telegram, pairingFor);
  if (service) {
    p.say("");
    const code = await installService(io, servicePlace(io, { user: false, "unit-dir": options["unit-dir"] }));
    if (code !== 0) return code;
  }
  p.say("\nNext:");
  if (!service)
    p.say("  ironclaw serve                 start the warden (it prints a login link for the UI)");
  if (!service) p.say("  ironclaw service install       run it as a systemd service instead");
  if (pairingFor) p.say(`  ironclaw user login-link ${pairingFor}   a sign-in link for the UI`);
  return 0;
}

/** ironclawd.toml with the answers over what it set, and the keys into ironclawd.env. */
function writeSettings(
  home: string,
  existing: Record<string, unknown>,
  provider: ProviderSetup,
  backend: CellBackendSetting,
  telegram: TelegramSetup | undefined,
) {
  const values: Record<string, unknown> = structuredClone(existing);
  const providers = record(values.providers);
  const entry: Record<string, unknown> = { ...record(providers[provider.name]), base_url: provider.baseUrl };
  if (provider.keyEnv !== undefined) {
    entry.api_key_env = provider.keyEnv;
    delete entry.api_key;
  } else delete entry.api_key_env;
  values.providers = { ...providers, [provider.name]: entry };
  values.new_brains = { ...record(values.new_brains), provider: provider.name, model: provider.model };
  if (provider.commandModel !== undefined)
    values.command = { ...record(values.command), provider: provider.name, model: provider.commandModel };
  values.cells = { ...record(values.cells), backend };
  const envValues: Record<string, string> = {};
  if (provider.keyEnv !== undefined && provider.keyToStore !== undefined)
    envValues[provider.keyEnv] = provider.keyToStore;
  if (telegram) {
    values.integrations = { ...record(values.integrations), telegram: telegram.table };
    if (telegram.publicUrl !== undefined)
      values.server = { ...record(values.server), public_url: telegram.publicUrl };
    Object.assign(envValues, telegram.envValues);
  }
  // The config is checked whole before it is written: a refused value leaves both files as they were.
  const config = writeHostConfig(home, values);
  const envFile = Object.keys(envValues).length > 0 ? writeHostEnv(home, envValues) : hostEnvFile(home);
  return { ...config, envFile, envNames: Object.keys(envValues) };
}

function listUsers(home: string): string[] {
  if (!existsSync(join(home, HOST_DB_FILE))) return [];
  const db = openHostDb(home);
  try {
    return new UserStore(db).list().map((u) => u.id);
  } finally {
    db.close();
  }
}

/** Creates the admin, if one was named; returns its token and whose pairing code to print. */
async function addUser(
  home: string,
  user: string | undefined,
  users: string[],
): Promise<{ token?: string; pairingFor?: string }> {
  const pairingFor = user ?? users[0];
  if (user === undefined) return pairingFor ? { pairingFor } : {};
  const db = openHostDb(home);
  try {
    const { token } = await new UserStore(db).add(user, { admin: true });
    new AuditStore(db).record({ userId: user, actor: "cli", action: "user.added", detail: { admin: true } });
    return { token, pairingFor: user };
  } finally {
    db.close();
  }
}

function showPairing(p: Prompter, home: string, telegram: TelegramSetup, user: string): void {
  const db = openHostDb(home);
  let code: string;
  try {
    code = new ChannelLinks(db).issuePairingCode(user, PAIRING_TTL_MS);
  } finally {
    db.close();
  }
  p.say(`\nLink Telegram to ${user}: scan this or open the link once the warden runs (one use, 60 minutes):`);
  p.say(pairingLinkText(telegram.username, code));
  if (telegram.publicUrl === undefined)
    p.say(
      "Telegram reaches the warden only at a public https address: set one with ironclaw setup --public-url, or " +
        `register the webhook yourself with the secret in ${String(telegram.table.secret_token_env)}.`,
    );
}

/** This login's name when it is a valid user name (root's is not a person's), else "admin". */
function defaultUserName(env: NodeJS.ProcessEnv): string {
  const name = env.USER ?? env.LOGNAME;
  return name && name !== "root" && userNameRule(name) === undefined ? name : "admin";
}
