import { loadHostConfig, usersDir } from "../../cells/index.js";
import { createLogger, InvalidInputError, ironclawHome, NotFoundError } from "../../core/index.js";
import { AuditStore, openHostDb, SkillStore, UserStore, WardenSecrets } from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { isTerminal, readHiddenLine } from "../hidden-prompt.js";
import { readInput } from "../read-input.js";

const NAME = {
  name: "name",
  required: true,
  valueName: "NAME",
  description: "the secret's name, also the variable skills read (like GITHUB_TOKEN)",
} as const;
const USER = {
  name: "user",
  type: "string",
  valueName: "name",
  required: true,
  description: "whose secret",
} as const;
const HOST = {
  name: "host",
  type: "string",
  valueName: "host",
  required: true,
  description: "the exact host name, reached on port 443 (like api.github.com)",
} as const;
const BY = "cli";

const set = defineCommand({
  name: "set",
  summary: "store a secret's value, read from stdin (or asked for without echo on a terminal)",
  description:
    "Store a secret's value, encrypted in $IRONCLAW_HOME/host.db under $IRONCLAW_HOME/secrets.key. The value is\n" +
    "read from stdin (one trailing newline is dropped), or asked for without echo when stdin is a terminal; it is\n" +
    "never taken from the command line, where other users of this host could read it. Cells never see it: they\n" +
    "get a placeholder the warden's egress proxy replaces in the bound header.",
  positionals: [NAME],
  options: [USER],
  async run({ args, options }, io) {
    const value = isTerminal(io.stdin)
      ? await readHiddenLine(io.stdin, `value of ${args.name} (not shown): `, io.stderr)
      : (await readInput("-", io.stdin)).replace(/\r?\n$/, "");
    if (value === "") throw new InvalidInputError("value", "must not be empty: pipe it on stdin");
    return withSecrets(io, ({ secrets }) => {
      const info = secrets.store.set(options.user, args.name, value, BY);
      println(io.stdout, `stored ${info.name} for ${options.user}`);
      return 0;
    });
  },
});

const list = defineCommand({
  name: "list",
  summary: "a user's secrets by name (never values), their bindings, and which skills need which",
  options: [USER, jsonOption("the names, bindings and needs")],
  async run({ options }, io) {
    return withSecrets(io, ({ secrets, users }) => {
      if (!users.get(options.user)) throw new NotFoundError("user", options.user);
      const overview = secrets.overview(options.user);
      if (options.json) {
        println(io.stdout, JSON.stringify(overview));
        return 0;
      }
      if (overview.secrets.length === 0) println(io.stdout, `no secrets stored for ${options.user}`);
      for (const s of overview.secrets) println(io.stdout, `${s.name.padEnd(32)} set ${s.updated_at}`);
      for (const b of overview.bindings)
        println(
          io.stdout,
          `${b.secret} → ${b.host}:443 ${b.header}: ${b.format}` +
            (b.methods ? ` (${b.methods.join(", ")})` : "") +
            (b.paths ? ` under ${b.paths.join(", ")}` : "") +
            (b.skill ? ` [skill ${b.skill}]` : "") +
            (b.secret_set ? "" : "  — missing secret"),
        );
      for (const n of overview.needs.filter((need) => !need.secret_set))
        println(io.stdout, `${n.secret} is needed by ${n.skills.join(", ")} — missing secret`);
      return 0;
    });
  },
});

const remove = defineCommand({
  name: "remove",
  summary: "delete a secret's value (its bindings stay and report it missing)",
  positionals: [NAME],
  options: [USER],
  async run({ args, options }, io) {
    return withSecrets(io, ({ secrets }) => {
      if (!secrets.store.remove(options.user, args.name, BY)) throw new NotFoundError("secret", args.name);
      println(io.stdout, `removed ${args.name} of ${options.user}`);
      return 0;
    });
  },
});

const bind = defineCommand({
  name: "bind",
  summary: "let the egress proxy put a secret into one header of requests to one host",
  description:
    "Let the warden's egress proxy put the secret into one header of HTTPS requests a cell sends to exactly\n" +
    "this host (port 443), optionally only with these methods and under these path prefixes. Binding the same\n" +
    "secret to the same host again replaces the earlier binding.",
  positionals: [NAME],
  options: [
    USER,
    HOST,
    { name: "header", type: "string", valueName: "name", description: "the header (default Authorization)" },
    {
      name: "format",
      type: "string",
      valueName: "text",
      description: 'how the value is written, with {secret} once (default "Bearer {secret}")',
    },
    { name: "method", type: "list", valueName: "METHOD", description: "only these methods (repeatable)" },
    { name: "path", type: "list", valueName: "/prefix", description: "only under these paths (repeatable)" },
  ],
  async run({ args, options }, io) {
    return withSecrets(io, ({ secrets }) => {
      const binding = secrets.bindings.bind(
        options.user,
        args.name,
        {
          host: options.host,
          ...(options.header === undefined ? {} : { header: options.header }),
          ...(options.format === undefined ? {} : { format: options.format }),
          ...(options.method.length > 0 ? { methods: options.method.map((m) => m.toUpperCase()) } : {}),
          ...(options.path.length > 0 ? { paths: options.path } : {}),
        },
        BY,
      );
      println(
        io.stdout,
        `bound ${binding.secretName} → ${binding.host}:443 ${binding.header}: ${binding.format}`,
      );
      if (!secrets.store.has(options.user, args.name))
        println(
          io.stdout,
          `${args.name} is not set yet: ironclaw secrets set ${args.name} --user ${options.user}`,
        );
      return 0;
    });
  },
});

const unbind = defineCommand({
  name: "unbind",
  summary: "remove a secret's binding to a host",
  positionals: [NAME],
  options: [USER, HOST],
  async run({ args, options }, io) {
    return withSecrets(io, ({ secrets }) => {
      if (!secrets.bindings.unbind(options.user, args.name, options.host, BY))
        throw new NotFoundError("binding", `${args.name} → ${options.host}`);
      println(io.stdout, `unbound ${args.name} from ${options.host}`);
      return 0;
    });
  },
});

export const secretsCommand = defineGroup({
  name: "secrets",
  summary: "users' secrets for skills: stored encrypted, bound to hosts, never given to a cell",
  description:
    "Users' secrets (API tokens and keys skills need), stored encrypted in $IRONCLAW_HOME/host.db. A cell gets\n" +
    "only an opaque placeholder; the warden's egress proxy puts the value into the bound header of requests to\n" +
    "the bound host. The warden may be running. Every change is audited, never with the value.",
  subcommands: [set, list, remove, bind, unbind],
});

function withSecrets<T>(io: CliIo, work: (deps: { secrets: WardenSecrets; users: UserStore }) => T): T {
  const home = ironclawHome(io.env);
  const config = loadHostConfig(home);
  const db = openHostDb(home);
  try {
    const audit = new AuditStore(db);
    const record = (entry: Parameters<AuditStore["record"]>[0]) => audit.record(entry);
    const secrets = new WardenSecrets({
      db,
      home,
      audit: record,
      logger: createLogger("ironclaw", { level: io.env.IRONCLAW_LOG ?? "warn" }),
      usesPerMinute: config.egress.secret_uses_per_minute,
      // So `list` shows which approved skills need which secret, as the UI does.
      skills: new SkillStore({ usersDir: usersDir(config, home), audit: record }),
    });
    return work({ secrets, users: new UserStore(db) });
  } finally {
    db.close();
  }
}
