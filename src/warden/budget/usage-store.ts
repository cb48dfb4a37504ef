import type Database from "better-sqlite3";
import type { UsageGroup } from "../../contracts/index.js";

// One row per model call a cell asked for, admitted or refused. A row is written when the call is reserved
// (state `open`) and settled once (done, error, aborted, interrupted); the trigger keeps a settled row as it is,
// so a record cannot be rewritten later by anyone, the warden included. A call is charged at most what it
// reserved: one the warden cut at its reservation (a provider ignoring max_tokens) has `cut` set, and one whose
// provider reported more than that keeps the provider's figure in provider_* beside the charge, never in it.
const DDL = `
CREATE TABLE IF NOT EXISTS usage_calls (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  agent TEXT,
  session TEXT,
  job TEXT,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'done', 'error', 'aborted', 'interrupted', 'refused')),
  day TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  ms INTEGER,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_micros INTEGER NOT NULL DEFAULT 0,
  priced INTEGER NOT NULL,
  estimated INTEGER NOT NULL DEFAULT 0,
  reserved_micros INTEGER NOT NULL DEFAULT 0,
  prompt_micros INTEGER NOT NULL DEFAULT 0,
  charges TEXT NOT NULL,
  owner TEXT,
  reason TEXT,
  cut INTEGER NOT NULL DEFAULT 0,
  provider_input_tokens INTEGER,
  provider_output_tokens INTEGER,
  provider_cost_micros INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_calls_by_user_day ON usage_calls(user_id, day);
CREATE INDEX IF NOT EXISTS usage_calls_by_day ON usage_calls(day);
CREATE INDEX IF NOT EXISTS usage_calls_open ON usage_calls(owner) WHERE state = 'open';
CREATE TRIGGER IF NOT EXISTS usage_calls_settled_once BEFORE UPDATE ON usage_calls WHEN OLD.state <> 'open'
  BEGIN SELECT RAISE(ABORT, 'a settled usage record never changes'); END;
`;

export function migrateUsageTables(db: Database.Database): void {
  db.exec(DDL);
  // host.db files from before cached-input pricing: the column is added, earlier calls count none cached.
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('usage_calls')").all();
  if (!columns.some((c) => c.name === "cached_input_tokens"))
    db.exec("ALTER TABLE usage_calls ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0");
  // ...and from before the charge was held to the reservation: no earlier call was cut or over-reported.
  if (!columns.some((c) => c.name === "cut"))
    db.exec(`ALTER TABLE usage_calls ADD COLUMN cut INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_calls ADD COLUMN provider_input_tokens INTEGER;
      ALTER TABLE usage_calls ADD COLUMN provider_output_tokens INTEGER;
      ALTER TABLE usage_calls ADD COLUMN provider_cost_micros INTEGER;`);
}

/** The outcome of a call once it is over; `interrupted` is a call whose warden died while it ran. */
export type CallState = "done" | "error" | "aborted" | "interrupted";

export interface UsageTotals {
  key: string;
  calls: number;
  refused: number;
  estimated: number;
  unpriced: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  costMicros: number;
  /** Calls cut at their reservation or whose provider reported more than they were charged. */
  overruns: number;
  /** What providers reported beyond what their calls were charged: recorded, not spent. */
  overReportedMicros: number;
}

export interface UsageFilter {
  user?: string;
  /** Local days (the user's time zone), inclusive. */
  since?: string;
  until?: string;
}

const GROUP_COLUMN: Record<UsageGroup, string> = {
  day: "day",
  model: "provider || ' ' || model",
  agent: "coalesce(agent, '(none)')",
  session: "coalesce(session, '(none)')",
  job: "coalesce(job, '(none)')",
  user: "user_id",
};

// A refused call never reached a provider: its row keeps the prompt estimate, but it sent no tokens.
const SUMS = `count(*) FILTER (WHERE state <> 'refused') AS calls,
  count(*) FILTER (WHERE state = 'refused') AS refused,
  coalesce(sum(estimated), 0) AS estimated,
  count(*) FILTER (WHERE priced = 0 AND state NOT IN ('refused', 'open')) AS unpriced,
  coalesce(sum(input_tokens) FILTER (WHERE state <> 'refused'), 0) AS inputTokens,
  coalesce(sum(cached_input_tokens) FILTER (WHERE state <> 'refused'), 0) AS cachedInputTokens,
  coalesce(sum(output_tokens) FILTER (WHERE state <> 'refused'), 0) AS outputTokens,
  coalesce(sum(cost_micros), 0) AS costMicros,
  count(*) FILTER (WHERE cut = 1 OR provider_cost_micros IS NOT NULL) AS overruns,
  coalesce(sum(max(provider_cost_micros - cost_micros, 0)) FILTER (WHERE provider_cost_micros IS NOT NULL), 0)
    AS overReportedMicros`;

/** Reports over usage_calls: spend grouped by day, model, agent, session, job or user. */
export class UsageStore {
  constructor(readonly db: Database.Database) {}

  report(by: UsageGroup, filter: UsageFilter = {}): { rows: UsageTotals[]; total: UsageTotals } {
    const where = `(@user IS NULL OR user_id = @user) AND (@since IS NULL OR day >= @since)
      AND (@until IS NULL OR day <= @until)`;
    const params = { user: filter.user ?? null, since: filter.since ?? null, until: filter.until ?? null };
    const rows = this.db
      .prepare<[typeof params], UsageTotals>(
        `SELECT ${GROUP_COLUMN[by]} AS key, ${SUMS} FROM usage_calls WHERE ${where} GROUP BY 1
         ORDER BY ${by === "day" ? "1" : "costMicros DESC, 1"}`,
      )
      .all(params);
    const total = this.db
      .prepare<[typeof params], UsageTotals>(`SELECT 'total' AS key, ${SUMS} FROM usage_calls WHERE ${where}`)
      .get(params);
    return {
      rows,
      total: total ?? {
        key: "total",
        calls: 0,
        refused: 0,
        estimated: 0,
        unpriced: 0,
        inputTokens: 0,
        cachedInputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
        overruns: 0,
        overReportedMicros: 0,
      },
    };
  }

  /** One call's record, for tests and the audit of a disputed charge. */
  call(id: string): Record<string, unknown> | undefined {
    return this.db
      .prepare<[string], Record<string, unknown>>("SELECT * FROM usage_calls WHERE id = ?")
      .get(id);
  }
}
