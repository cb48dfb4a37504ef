import { join, resolve } from "node:path";
import { InvalidInputError } from "../../core/index.js";
import type { HistoryRepo } from "./history-git.js";

/** The files of one user's history folder (IRONCLAW_HOME/attest/history/<user>/). */
export interface HistoryLayout {
  repo: HistoryRepo;
  nodesDir: string;
  headFile: string;
  lockFile: string;
  redactionsFile: string;
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The history folder of `userId` under `home`; a user id that is not a plain name is refused. */
export function historyDirOf(home: string, userId: string): string {
  if (!USER_ID.test(userId))
    throw new InvalidInputError(
      "user",
      "must start with a letter or digit and use only letters, digits, - and _",
    );
  return join(resolve(home), "attest", "history", userId);
}

export function historyLayout(dir: string): HistoryLayout {
  return {
    repo: { gitDir: join(dir, "git"), workTree: join(dir, "tree") },
    nodesDir: join(dir, "nodes"),
    headFile: join(dir, "head"),
    lockFile: join(dir, "lock"),
    redactionsFile: join(dir, "redactions.json"),
  };
}
