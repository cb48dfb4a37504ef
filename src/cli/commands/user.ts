import { join } from "node:path";
import { parseArgs } from "node:util";
import type Database from "better-sqlite3";
import { loadHostConfig } from "../../cells/index.js";
import { ironclawHome, NotFoundError } from "../../core/index.js";
import { AuditStore } from "../../warden/audit-store.js";
import { openHostDb } from "../../warden/host-db.js";
import { LoginLinks } from "../../warden/login-links.js";
import { UserStore } from "../../warden/user-store.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw user add <name> [--admin] [--json]
       ironclaw user list [--json]
       ironclaw user remove <name>
       ironclaw user token rotate <name> [--json]
       ironclaw user login-link <name>

The warden's users, in $IRONCLAW_HOME/host.db (IRONCLAW_HOME=~/.ironclaw).
  add            create a user and print their API token; it is shown this once and never stored in clear
                 (--json prints {"user":"<name>","token":"<token>"})
  list           every user with admin flag, creation time and cell uid
  remove         delete a user with their tokens and sessions; their brain on disk is left in place
  token rotate   replace the user's API token; the old one stops working at once
  login-link     a one-time link that signs the user in to the UI (the printed admin link expired or was used)`;

export const userCommand: CliCommand = {
  name: "user",
  summary: "add, list and remove the warden's users; rotate their API tokens",
  usage,
  async run(argv, io) {
    const { values, positionals } = parsing(() =>
      parseArgs({
        args: argv,
        allowPositionals: true,
        options: { admin: { type: "boolean" }, json: { type: "boolean" } },
      }),
    );
    const [sub, ...rest] = positionals;
    if (values.admin && sub !== "add") throw new UsageError("--admin applies to add only");
    if (sub === "token") {
      const [verb, name, ...extra] = rest;
      if (verb !== "rotate") throw new UsageError("expected token rotate <name>");
      const user = required(name, extra);
      return withStores(io, async (users, audit) => {
        const token = await users.rotateToken(user);
        audit.record({ userId: user, actor: "cli", action: "user.token_rotated" });
        if (values.json) println(io.stdout, JSON.stringify({ user, token }));
        else printToken(io, token);
        return 0;
      });
    }
    const [name, ...extra] = rest;
    switch (sub) {
      case "add": {
        const added = required(name, extra);
        return withStores(io, async (users, audit) => {
          const { user, token } = await users.add(added, { admin: values.admin === true });
          audit.record({
            userId: user.id,
            actor: "cli",
            action: "user.added",
            detail: { admin: user.admin },
          });
          if (values.json) println(io.stdout, JSON.stringify({ user: user.id, token }));
          else {
            println(
              io.stdout,
              `added ${user.admin ? "admin " : ""}user ${user.id} (cell uid ${user.cellUid})`,
            );
            printToken(io, token);
          }
          return 0;
        });
      }
      case "list":
        if (name !== undefined) throw new UsageError(`unexpected argument '${name}'`);
        return withStores(io, async (users) => {
          const rows = users.list().map((u) => ({
            user: u.id,
            admin: u.admin,
            created_at: u.createdAt,
            cell_uid: u.cellUid,
          }));
          if (values.json) println(io.stdout, JSON.stringify(rows));
          else if (rows.length === 0) println(io.stdout, "no users");
          else
            for (const r of rows)
              println(
                io.stdout,
                `${r.user.padEnd(24)} ${r.admin ? "admin" : "user "} ${r.cell_uid}  ${r.created_at}`,
              );
          return 0;
        });
      case "login-link": {
        const who = required(name, extra);
        const home = ironclawHome(io.env);
        const config = loadHostConfig(home);
        return withStores(io, async (users, audit, db) => {
          if (!users.get(who)) throw new NotFoundError("user", who);
          const code = new LoginLinks(db).issue(who, config.auth.login_link_ttl_minutes * 60_000);
          audit.record({ userId: who, actor: "cli", action: "login_link.issued" });
          const base = config.server.public_url
            ? new URL(config.server.public_url).origin
            : `http://${config.server.bind === "0.0.0.0" ? "127.0.0.1" : config.server.bind}:${config.server.port}`;
          println(io.stdout, `${base}/login?code=${code}`);
          println(io.stderr, `one use, valid for ${config.auth.login_link_ttl_minutes} minutes`);
          return 0;
        });
      }
      case "remove": {
        const removed = required(name, extra);
        return withStores(io, async (users, audit) => {
          users.remove(removed);
          audit.record({ userId: removed, actor: "cli", action: "user.removed" });
          println(
            io.stdout,
            `removed user ${removed}; their files under ${join(ironclawHome(io.env), "users")} are left in place`,
          );
          return 0;
        });
      }
      case undefined:
        throw new UsageError("missing subcommand: add, list, remove or token rotate");
      default:
        throw new UsageError(`unknown subcommand '${sub}'`);
    }
  },
};

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

function required(name: string | undefined, extra: string[]): string {
  if (name === undefined) throw new UsageError("missing <name>");
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
  return name;
}

function printToken(io: CliIo, token: string): void {
  println(io.stdout, `token: ${token}`);
  println(io.stdout, "This token is shown once; store it now (only its hash is kept).");
}

/** parseArgs, with its complaints (unknown option, missing value) reported as usage errors. */
function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
