import { join } from "node:path";
import type Database from "better-sqlite3";
import { loadHostConfig } from "../../cells/index.js";
import { ironclawHome, NotFoundError } from "../../core/index.js";
import {
  AuditStore,
  LoginLinks,
  openHostDb,
  runningWardenUrl,
  signOutEverywhere,
  UserStore,
  WebSessions,
} from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const NAME = { name: "name", required: true, description: "the user's name" } as const;
const JSON_OUTPUT = jsonOption('{"user":"<name>","token":"<token>"}');

const add = defineCommand({
  name: "add",
  summary: "create a user and print their API token; it is shown this once and never stored in clear",
  positionals: [NAME],
  options: [{ name: "admin", type: "boolean", description: "the user administers the warden" }, JSON_OUTPUT],
  async run({ options, args }, io) {
    return withStores(io, async (users, audit) => {
      const { user, token } = await users.add(args.name, { admin: options.admin });
      audit.record({ userId: user.id, actor: "cli", action: "user.added", detail: { admin: user.admin } });
      if (options.json) println(io.stdout, JSON.stringify({ user: user.id, token }));
      else {
        println(io.stdout, `added ${user.admin ? "admin " : ""}user ${user.id} (cell uid ${user.cellUid})`);
        printToken(io, token);
      }
      return 0;
    });
  },
});

const list = defineCommand({
  name: "list",
  summary: "every user with admin flag, creation time and cell uid",
  options: [jsonOption("the users")],
  async run({ options }, io) {
    return withStores(io, async (users) => {
      const rows = users.list().map((u) => ({
        user: u.id,
        admin: u.admin,
        created_at: u.createdAt,
        cell_uid: u.cellUid,
      }));
      if (options.json) println(io.stdout, JSON.stringify(rows));
      else if (rows.length === 0) println(io.stdout, "no users");
      else
        for (const r of rows)
          println(
            io.stdout,
            `${r.user.padEnd(24)} ${r.admin ? "admin" : "user "} ${r.cell_uid}  ${r.created_at}`,
          );
      return 0;
    });
  },
});

const remove = defineCommand({
  name: "remove",
  summary: "delete a user with their tokens and browser sessions (ended at once); their brain on disk stays",
  positionals: [NAME],
  async run({ args }, io) {
    return withStores(io, async (users, audit) => {
      users.remove(args.name);
      audit.record({ userId: args.name, actor: "cli", action: "user.removed" });
      const files = join(ironclawHome(io.env), "users");
      println(io.stdout, `removed user ${args.name}; their files under ${files} are left in place`);
      return 0;
    });
  },
});

const rotate = defineCommand({
  name: "rotate",
  summary: "replace the user's API token; the old one and every browser session stop working at once",
  positionals: [NAME],
  options: [JSON_OUTPUT],
  async run({ options, args }, io) {
    return withStores(io, async (users, audit) => {
      const token = await users.rotateToken(args.name);
      audit.record({ userId: args.name, actor: "cli", action: "user.token_rotated" });
      if (options.json) println(io.stdout, JSON.stringify({ user: args.name, token }));
      else printToken(io, token);
      return 0;
    });
  },
});

const logout = defineCommand({
  name: "logout",
  summary:
    "sign the user out everywhere: end every browser session and unused login link (tokens keep working)",
  positionals: [NAME],
  options: [jsonOption('{"user":"<name>","sessions_ended":<n>}')],
  async run({ options, args }, io) {
    return withStores(io, async (users, audit, db) => {
      const ended = signOutEverywhere({ users, webSessions: new WebSessions(db) }, args.name);
      audit.record({
        userId: args.name,
        actor: "cli",
        action: "logout.everywhere",
        detail: { sessions: ended },
      });
      if (options.json) println(io.stdout, JSON.stringify({ user: args.name, sessions_ended: ended }));
      else {
        println(io.stdout, `signed ${args.name} out everywhere: ${ended} browser session(s) ended`);
        println(io.stdout, `API tokens still work; to end those: ironclaw user token rotate ${args.name}`);
      }
      return 0;
    });
  },
});

const loginLink = defineCommand({
  name: "login-link",
  summary: "a one-time link that signs the user in to the UI (the printed admin link expired or was used)",
  positionals: [NAME],
  async run({ args }, io) {
    const home = ironclawHome(io.env);
    const config = loadHostConfig(home);
    return withStores(io, async (users, audit, db) => {
      if (!users.get(args.name)) throw new NotFoundError("user", args.name);
      const code = new LoginLinks(db).issue(args.name, config.auth.login_link_ttl_minutes * 60_000);
      audit.record({ userId: args.name, actor: "cli", action: "login_link.issued" });
      // The address people reach it at, else where the running warden listens (`serve --port` may differ from
      // the file), else what ironclawd.toml says.
      const base = config.server.public_url
        ? new URL(config.server.public_url).origin
        : (runningWardenUrl(home) ??
          `http://${config.server.bind === "0.0.0.0" ? "127.0.0.1" : config.server.bind}:${config.server.port}`);
      println(io.stdout, `${base}/login?code=${code}`);
      println(io.stderr, `one use, valid for ${config.auth.login_link_ttl_minutes} minutes`);
      return 0;
    });
  },
});

export const userCommand = defineGroup({
  name: "user",
  summary: "add, list and remove the warden's users; rotate their API tokens; sign them out everywhere",
  description: "The warden's users, in $IRONCLAW_HOME/host.db (IRONCLAW_HOME=~/.ironclaw).",
  subcommands: [
    add,
    list,
    remove,
    defineGroup({ name: "token", summary: "replace a user's API token", subcommands: [rotate] }),
    logout,
    loginLink,
  ],
});

async function withStores(
  io: CliIo,
  work: (users: UserStore, audit: AuditStore, db: Database.Database) => Promise<number>,
): Promise<number> {
  const db = openHostDb(ironclawHome(io.env));
  try {
    return await work(new UserStore(db), new AuditStore(db), db);
  } finally {
    db.close();
  }
}

function printToken(io: CliIo, token: string): void {
  println(io.stdout, `token: ${token}`);
  println(io.stdout, "This token is shown once; store it now (only its hash is kept).");
}
