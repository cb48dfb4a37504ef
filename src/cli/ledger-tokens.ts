import { statSync } from "node:fs";
import { join } from "node:path";
import { IronclawError, ironclawHome } from "../core/index.js";
import type { LedgerAuthenticator } from "../ledger/index.js";
import { HOST_DB_FILE, openHostDb, UserStore } from "../warden/index.js";
import type { CliIo } from "./command.js";

/**
 * Bearer tokens for `serve`: the API tokens of the warden's admin users. Admins only, because ledger events
 * drive command (orders, merges) and the warden's other users are people chatting with their own agent.
 * Refuses to start when there is no host.db or no admin in it: serving a network with nobody able to
 * authenticate would only look like it works.
 */
export function openTokenCheck(
  io: CliIo,
  reason: string,
): { authenticate: LedgerAuthenticator; close(): void } {
  const file = join(ironclawHome(io.env), HOST_DB_FILE);
  const fix = "create one with `ironclaw user add <name> --admin`, or serve on 127.0.0.1";
  if (!exists(file))
    throw new IronclawError(
      "ledger_tokens_missing",
      `${reason} needs admin tokens, and ${file} does not exist: ${fix}`,
    );
  const db = openHostDb(ironclawHome(io.env));
  const users = new UserStore(db);
  if (!users.list().some((u) => u.admin)) {
    db.close();
    throw new IronclawError(
      "ledger_tokens_missing",
      `${reason} needs admin tokens, and ${file} has no admin user: ${fix}`,
    );
  }
  return {
    authenticate: async (token) => (await users.authenticate(token))?.admin === true,
    close: () => db.close(),
  };
}

/** Unlike existsSync, a file this user may not see is a permission error (explained by the CLI), not "missing". */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
