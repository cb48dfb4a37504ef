import type Database from "better-sqlite3";
import { type Party, type PartyKind, type Period, partyKey } from "./budget-party.js";

// Caps, the users' time zones, the spend counters per party and window, and the alerts already sent. All in
// host.db, which no cell can reach: a guest can neither raise a cap nor touch a counter.
const DDL = `
CREATE TABLE IF NOT EXISTS budget_caps (
  party TEXT NOT NULL,
  kind TEXT NOT NULL,
  user_id TEXT,
  name TEXT,
  period TEXT NOT NULL CHECK (period IN ('day', 'month', 'total')),
  limit_micros INTEGER NOT NULL CHECK (limit_micros >= 0),
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  PRIMARY KEY (party, period)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS budget_caps_by_user ON budget_caps(user_id);
CREATE TABLE IF NOT EXISTS budget_time_zones (
  user_id TEXT PRIMARY KEY,
  time_zone TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS budget_spend (
  party TEXT NOT NULL,
  period_key TEXT NOT NULL,
  spent_micros INTEGER NOT NULL DEFAULT 0,
  reserved_micros INTEGER NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
  PRIMARY KEY (party, period_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS budget_alerts (
  id INTEGER PRIMARY KEY,
  user_id TEXT,
  party TEXT NOT NULL,
  period_key TEXT NOT NULL,
  level TEXT NOT NULL,
  limit_micros INTEGER NOT NULL,
  spent_micros INTEGER NOT NULL,
  message TEXT NOT NULL,
  at TEXT NOT NULL,
  UNIQUE (party, period_key, level)
);
CREATE INDEX IF NOT EXISTS budget_alerts_by_user ON budget_alerts(user_id, id);
`;

export function migrateBudgetTables(db: Database.Database): void {
  db.exec(DDL);
}

export interface Cap {
  party: Party;
  key: string;
  period: Period;
  limitMicros: number;
}

export interface BudgetAlert {
  id: number;
  userId: string | null;
  party: string;
  periodKey: string;
  level: string;
  limitMicros: number;
  spentMicros: number;
  message: string;
  at: string;
}

interface CapRow {
  party: string;
  kind: string;
  user_id: string | null;
  name: string | null;
  period: string;
  limit_micros: number;
}

interface AlertRow {
  id: number;
  user_id: string | null;
  party: string;
  period_key: string;
  level: string;
  limit_micros: number;
  spent_micros: number;
  message: string;
  at: string;
}

/** The caps, time zones, counters and alerts of host.db; writes of caps come from the CLI and admin routes only. */
export class BudgetStore {
  private readonly capsOf: (keysJson: string) => CapRow[];
  private readonly spendOf: Database.Statement<[string, string], { spent: number; reserved: number }>;

  constructor(
    readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    const capsOf = db.prepare<[string], CapRow>(
      "SELECT party, kind, user_id, name, period, limit_micros FROM budget_caps WHERE party IN (SELECT value FROM json_each(?))",
    );
    this.capsOf = (keysJson) => capsOf.all(keysJson);
    this.spendOf = db.prepare(
      "SELECT spent_micros AS spent, reserved_micros AS reserved FROM budget_spend WHERE party = ? AND period_key = ?",
    );
  }

  /** Sets (or with null removes) one period's cap of a party. */
  setCap(party: Party, period: Period, limitMicros: number | null, by: string): void {
    const key = partyKey(party);
    if (limitMicros === null) {
      this.db.prepare("DELETE FROM budget_caps WHERE party = ? AND period = ?").run(key, period);
      return;
    }
    this.db
      .prepare(
        `INSERT INTO budget_caps (party, kind, user_id, name, period, limit_micros, updated_at, updated_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(party, period) DO UPDATE SET limit_micros = excluded.limit_micros,
           updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      )
      .run(
        key,
        party.kind,
        party.user ?? null,
        party.name ?? null,
        period,
        limitMicros,
        new Date(this.now()).toISOString(),
        by,
      );
  }

  /** Removes every cap of a party; how many there were. Its spend stays on record. */
  clear(party: Party): number {
    return this.db.prepare("DELETE FROM budget_caps WHERE party = ?").run(partyKey(party)).changes;
  }

  /** The caps on these parties (by key). */
  capsFor(keys: readonly string[]): Cap[] {
    return this.capsOf(JSON.stringify(keys)).map(capOf);
  }

  /** Every cap, or a user's (their own parties; the host's cap only when `withHost`). */
  list(filter: { user?: string; withHost?: boolean } = {}): Cap[] {
    const rows =
      filter.user === undefined
        ? this.db.prepare<[], CapRow>("SELECT * FROM budget_caps ORDER BY party, period").all()
        : this.db
            .prepare<[string, number], CapRow>(
              "SELECT * FROM budget_caps WHERE user_id = ? OR (? AND kind = 'host') ORDER BY party, period",
            )
            .all(filter.user, filter.withHost ? 1 : 0);
    return rows.map(capOf);
  }

  setTimeZone(userId: string, timeZone: string): void {
    this.db
      .prepare(
        "INSERT INTO budget_time_zones (user_id, time_zone) VALUES (?, ?) ON CONFLICT(user_id) DO UPDATE SET time_zone = excluded.time_zone",
      )
      .run(userId, timeZone);
  }

  timeZoneOf(userId: string): string | undefined {
    return this.db
      .prepare<[string], { time_zone: string }>("SELECT time_zone FROM budget_time_zones WHERE user_id = ?")
      .get(userId)?.time_zone;
  }

  /** What a party has spent and holds for calls in flight in one window (zero when nothing was ever counted). */
  spend(key: string, periodKey: string): { spent: number; reserved: number } {
    return this.spendOf.get(key, periodKey) ?? { spent: 0, reserved: 0 };
  }

  /** Records an alert unless this party and window already had this level; the stored alert when it is new. */
  addAlert(alert: Omit<BudgetAlert, "id" | "at">): BudgetAlert | undefined {
    const at = new Date(this.now()).toISOString();
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO budget_alerts (user_id, party, period_key, level, limit_micros, spent_micros, message, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        alert.userId,
        alert.party,
        alert.periodKey,
        alert.level,
        alert.limitMicros,
        alert.spentMicros,
        alert.message,
        at,
      );
    return result.changes === 0 ? undefined : { ...alert, id: Number(result.lastInsertRowid), at };
  }

  /** Alerts after an id (the UI polls with the last it saw), a user's or every one. */
  alerts(filter: { user?: string; after?: number; limit?: number } = {}): BudgetAlert[] {
    const rows = this.db
      .prepare<[{ user: string | null; after: number; limit: number }], AlertRow>(
        "SELECT * FROM budget_alerts WHERE (@user IS NULL OR user_id = @user) AND id > @after ORDER BY id LIMIT @limit",
      )
      .all({ user: filter.user ?? null, after: filter.after ?? 0, limit: filter.limit ?? 100 });
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      party: r.party,
      periodKey: r.period_key,
      level: r.level,
      limitMicros: r.limit_micros,
      spentMicros: r.spent_micros,
      message: r.message,
      at: r.at,
    }));
  }
}

function capOf(row: CapRow): Cap {
  const party: Party = {
    kind: row.kind as PartyKind,
    ...(row.user_id === null ? {} : { user: row.user_id }),
    ...(row.name === null ? {} : { name: row.name }),
  };
  return { party, key: row.party, period: row.period as Period, limitMicros: row.limit_micros };
}
