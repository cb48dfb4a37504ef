import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type CellBackend, type CellStartSpec, userCellSpec } from "../cells/index.js";

/**
 * The owner a cell started from the CLI gets: the user's cell uid as `ironclaw user add` recorded it in the
 * home's host.db, read-only (the warden may be running and writing it), given through the same userCellSpec
 * the warden's starts use, so both paths run the user's cell as the same uid with its own cgroup.
 */
export function cliCellSpec(
  home: string,
  userId: string,
  backend: Pick<CellBackend, "isolated">,
): Pick<CellStartSpec, "runAs"> {
  return userCellSpec(userId, readCellUid(home, userId), backend);
}

function readCellUid(home: string, userId: string): number | undefined {
  const file = join(home, "host.db");
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const row = db.prepare("SELECT cell_uid FROM warden_users WHERE id = ?").get(userId) as
      | { cell_uid: number }
      | undefined;
    return row?.cell_uid;
  } catch {
    // A host.db without users yet (no table) knows no uid either.
    return undefined;
  } finally {
    db.close();
  }
}
