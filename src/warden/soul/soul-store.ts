import type Database from "better-sqlite3";
import { ConflictError, NotFoundError, newId, sha256Hex } from "../../core/index.js";

/**
 * The soul guard's state in host.db: per user and prompt file the version a human last approved (the baseline
 * every change is compared with and that a rejection restores; null content: approved as absent), which users'
 * brains the guard has looked at once, and the changes held for a decision. A user with a pending change is
 * halted. Rows are kept after a decision: they are the history the UI shows.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS soul_baseline (
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  content TEXT,
  sha256 TEXT NOT NULL,
  approved_at TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  PRIMARY KEY (user_id, path)
);
CREATE TABLE IF NOT EXISTS soul_guard_users (
  user_id TEXT PRIMARY KEY,
  first_seen_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS soul_changes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  before_sha256 TEXT NOT NULL,
  before TEXT NOT NULL,
  after TEXT,
  reasons TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('agent', 'file_op', 'ui', 'api', 'scan')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  created_at TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,
  applied INTEGER NOT NULL DEFAULT 0,
  path TEXT NOT NULL DEFAULT 'soul.md',
  before_absent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS soul_changes_by_user ON soul_changes(user_id, status, created_at);
CREATE INDEX IF NOT EXISTS soul_changes_by_status ON soul_changes(status, created_at);
`;

/** Before every prompt file was guarded, the baseline was soul.md's alone: one row per user, no path. */
const SOUL_ONLY_BASELINE = `
ALTER TABLE soul_baseline RENAME TO soul_baseline_soul_only;
CREATE TABLE soul_baseline (
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  content TEXT,
  sha256 TEXT NOT NULL,
  approved_at TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  PRIMARY KEY (user_id, path)
);
INSERT INTO soul_baseline (user_id, path, content, sha256, approved_at, approved_by)
  SELECT user_id, 'soul.md', content, sha256, approved_at, approved_by FROM soul_baseline_soul_only;
DROP TABLE soul_baseline_soul_only;
`;

export function migrateSoulTables(db: Database.Database): void {
  const columns = (table: string) =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
  const baseline = columns("soul_baseline");
  if (baseline.length > 0 && !baseline.includes("path")) db.exec(SOUL_ONLY_BASELINE);
  const changes = columns("soul_changes");
  if (changes.length > 0 && !changes.includes("path"))
    db.exec(`ALTER TABLE soul_changes ADD COLUMN path TEXT NOT NULL DEFAULT 'soul.md';
             ALTER TABLE soul_changes ADD COLUMN before_absent INTEGER NOT NULL DEFAULT 0;`);
  db.exec(DDL);
}

/** Where a change was seen: the agent's own write, a file operation, the UI, the API, or a periodic scan. */
export const SOUL_CHANGE_SOURCES = ["agent", "file_op", "ui", "api", "scan"] as const;
export type SoulChangeSource = (typeof SOUL_CHANGE_SOURCES)[number];
export type SoulChangeStatus = "pending" | "approved" | "rejected";

export interface SoulBaseline {
  userId: string;
  /** The prompt file, relative to the brain. */
  path: string;
  /** null: approved as absent (deleted, or never there). */
  content: string | null;
  sha256: string;
  approvedAt: string;
  approvedBy: string;
}

export interface SoulChange {
  id: string;
  userId: string;
  /** The prompt file, relative to the brain. */
  path: string;
  beforeSha256: string;
  /** The approved version it is compared with; null: there was none (the change creates the file). */
  before: string | null;
  /** null: the file was deleted. */
  after: string | null;
  reasons: string[];
  source: SoulChangeSource;
  status: SoulChangeStatus;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  /** The warden has made the brain's file match this decision (written or removed the baseline). */
  applied: boolean;
}

export type SoulAudit = (entry: {
  userId: string;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
}) => void;

/** A decision on a change that was already decided, or applying one that is still pending. */
export class SoulChangeStateError extends ConflictError {
  constructor(
    readonly change: SoulChange,
    wanted: string,
  ) {
    super(
      `cannot ${wanted} the change to ${change.path} (${change.id}): ${
        change.status === "pending"
          ? "it is still pending"
          : `it was already ${change.status} by ${change.decidedBy} at ${change.decidedAt}`
      }`,
    );
  }
}

interface ChangeRow {
  id: string;
  user_id: string;
  path: string;
  before_sha256: string;
  before: string;
  before_absent: number;
  after: string | null;
  reasons: string;
  source: SoulChangeSource;
  status: SoulChangeStatus;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  applied: number;
}

interface BaselineRow {
  user_id: string;
  path: string;
  content: string | null;
  sha256: string;
  approved_at: string;
  approved_by: string;
}

export const SOUL_FILE = "soul.md";

export class SoulStore {
  private readonly audit: SoulAudit;
  private readonly now: () => Date;

  constructor(
    private readonly db: Database.Database,
    options: { audit?: SoulAudit; now?: () => Date } = {},
  ) {
    this.audit = options.audit ?? (() => {});
    this.now = options.now ?? (() => new Date());
  }

  /** The approved version of one prompt file (soul.md unless named). */
  baseline(userId: string, path = SOUL_FILE): SoulBaseline | undefined {
    const row = this.db
      .prepare("SELECT * FROM soul_baseline WHERE user_id = ? AND path = ?")
      .get(userId, path) as BaselineRow | undefined;
    return row && toBaseline(row);
  }

  /** Every approved prompt file of a user, by path. */
  baselines(userId: string): SoulBaseline[] {
    const rows = this.db
      .prepare("SELECT * FROM soul_baseline WHERE user_id = ? ORDER BY path")
      .all(userId) as BaselineRow[];
    return rows.map(toBaseline);
  }

  /** Records `content` (null: absent) as the approved version of `path`. */
  setBaseline(userId: string, path: string, content: string | null, by: string): SoulBaseline {
    return this.db
      .transaction(() => {
        const baseline = this.writeBaseline(userId, path, content, by);
        this.audit({
          userId,
          actor: by,
          action: "soul.baseline_set",
          detail: { path, sha256: baseline.sha256, deleted: content === null },
        });
        return baseline;
      })
      .immediate();
  }

  /** Drops the approved version of `path` (a person's edit that was recorded and then failed to be written). */
  forgetBaseline(userId: string, path: string): void {
    this.db.prepare("DELETE FROM soul_baseline WHERE user_id = ? AND path = ?").run(userId, path);
  }

  /**
   * The guard's first look at a user's brain: every prompt file there now is taken as approved (the starter
   * files, or what the owner wrote), apart from those that already have a baseline. Later looks compare with
   * these. Returns false when the brain was seen before, and records nothing then.
   */
  recordFirstLook(userId: string, files: ReadonlyArray<{ path: string; content: string }>): boolean {
    return this.db
      .transaction(() => {
        const seen = this.db.prepare("SELECT 1 FROM soul_guard_users WHERE user_id = ?").get(userId);
        if (seen) return false;
        const known = new Set(this.baselines(userId).map((b) => b.path));
        for (const file of files) {
          if (!known.has(file.path)) this.writeBaseline(userId, file.path, file.content, "first-seen");
        }
        this.db
          .prepare("INSERT INTO soul_guard_users (user_id, first_seen_at) VALUES (?, ?)")
          .run(userId, this.now().toISOString());
        this.audit({
          userId,
          actor: "warden",
          action: "soul.first_seen",
          detail: { paths: files.map((f) => f.path).filter((p) => !known.has(p)) },
        });
        return true;
      })
      .immediate();
  }

  /** Records a held change; a pending change of this user and file with the same `after` is returned instead. */
  hold(
    userId: string,
    change: {
      path: string;
      before: string | null;
      after: string | null;
      reasons: string[];
      source: SoulChangeSource;
    },
  ): SoulChange {
    return this.db
      .transaction(() => {
        const same = this.db
          .prepare(
            `SELECT * FROM soul_changes WHERE user_id = ? AND path = ? AND status = 'pending' AND after IS ?
             ORDER BY created_at, id LIMIT 1`,
          )
          .get(userId, change.path, change.after) as ChangeRow | undefined;
        if (same) return toChange(same);
        const id = newId();
        this.db
          .prepare(
            `INSERT INTO soul_changes (id, user_id, path, before_sha256, before, before_absent, after, reasons,
               source, status, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
          )
          .run(
            id,
            userId,
            change.path,
            sha256Hex(change.before ?? ""),
            change.before ?? "",
            change.before === null ? 1 : 0,
            change.after,
            JSON.stringify(change.reasons),
            change.source,
            this.now().toISOString(),
          );
        this.audit({
          userId,
          actor: "warden",
          action: "soul.held",
          detail: { change_id: id, path: change.path, source: change.source, reasons: change.reasons },
        });
        return this.require(id);
      })
      .immediate();
  }

  /** Pending changes, oldest first; of one user or of everyone. */
  pending(userId?: string): SoulChange[] {
    const rows = (
      userId === undefined
        ? this.db.prepare("SELECT * FROM soul_changes WHERE status = 'pending' ORDER BY created_at, id").all()
        : this.db
            .prepare(
              "SELECT * FROM soul_changes WHERE user_id = ? AND status = 'pending' ORDER BY created_at, id",
            )
            .all(userId)
    ) as ChangeRow[];
    return rows.map(toChange);
  }

  get(id: string): SoulChange | undefined {
    const row = this.db.prepare("SELECT * FROM soul_changes WHERE id = ?").get(id) as ChangeRow | undefined;
    return row && toChange(row);
  }

  /** Approves a pending change and makes its `after` the baseline of its file, in one transaction. */
  approve(id: string, by: string): SoulChange {
    return this.decide(id, by, "approved", "approve", (change) => {
      // An approved deletion is a baseline of "absent": whatever is written there next is a new file, held.
      const baseline = this.writeBaseline(change.userId, change.path, change.after, by);
      return { change_id: id, path: change.path, sha256: baseline.sha256 };
    });
  }

  /** Rejects a pending change; the baseline stays, and the warden must restore it (see unappliedDecisions). */
  reject(id: string, by: string): SoulChange {
    return this.decide(id, by, "rejected", "reject", (change) => ({
      change_id: id,
      path: change.path,
      reasons: change.reasons,
    }));
  }

  /** A halted user's agent takes no turns until every pending change is decided. */
  isHalted(userId: string): boolean {
    return (
      this.db
        .prepare("SELECT 1 FROM soul_changes WHERE user_id = ? AND status = 'pending' LIMIT 1")
        .get(userId) !== undefined
    );
  }

  /** Rejections whose baseline the warden has not yet written back into the brain, oldest first. */
  unappliedRejections(userId: string): SoulChange[] {
    return this.unapplied(userId, "status = 'rejected'");
  }

  /**
   * Every decision the brain does not reflect yet, oldest first: rejections, and approvals of changes that
   * were held before being written. Writing each file's baseline applies either.
   */
  unappliedDecisions(userId: string): SoulChange[] {
    return this.unapplied(userId, "status <> 'pending'");
  }

  /** Records that the brain's file now matches this decision. Idempotent; a pending change is refused. */
  markApplied(id: string): SoulChange {
    const change = this.require(id);
    if (change.status === "pending") throw new SoulChangeStateError(change, "apply");
    this.db.prepare("UPDATE soul_changes SET applied = 1 WHERE id = ?").run(id);
    return this.require(id);
  }

  private unapplied(userId: string, status: string): SoulChange[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM soul_changes WHERE user_id = ? AND ${status} AND applied = 0 ORDER BY decided_at, id`,
      )
      .all(userId) as ChangeRow[];
    return rows.map(toChange);
  }

  private decide(
    id: string,
    by: string,
    status: "approved" | "rejected",
    verb: string,
    effect: (change: SoulChange) => Record<string, unknown>,
  ): SoulChange {
    // Immediate: the check and the update see the same row even when the CLI and the warden decide at once.
    // The audit callback runs inside, so a decision that cannot be audited is not made.
    return this.db
      .transaction(() => {
        const change = this.require(id);
        if (change.status !== "pending") throw new SoulChangeStateError(change, verb);
        this.db
          .prepare("UPDATE soul_changes SET status = ?, decided_at = ?, decided_by = ? WHERE id = ?")
          .run(status, this.now().toISOString(), by, id);
        const detail = effect(change);
        this.audit({ userId: change.userId, actor: by, action: `soul.${status}`, detail });
        return this.require(id);
      })
      .immediate();
  }

  private writeBaseline(userId: string, path: string, content: string | null, by: string): SoulBaseline {
    const row: BaselineRow = {
      user_id: userId,
      path,
      content,
      sha256: sha256Hex(content ?? ""),
      approved_at: this.now().toISOString(),
      approved_by: by,
    };
    this.db
      .prepare(
        `INSERT INTO soul_baseline (user_id, path, content, sha256, approved_at, approved_by)
         VALUES (@user_id, @path, @content, @sha256, @approved_at, @approved_by)
         ON CONFLICT(user_id, path) DO UPDATE SET content = @content, sha256 = @sha256,
           approved_at = @approved_at, approved_by = @approved_by`,
      )
      .run(row);
    return toBaseline(row);
  }

  private require(id: string): SoulChange {
    const change = this.get(id);
    if (!change) throw new NotFoundError("soul change", id);
    return change;
  }
}

function toBaseline(row: BaselineRow): SoulBaseline {
  return {
    userId: row.user_id,
    path: row.path,
    content: row.content,
    sha256: row.sha256,
    approvedAt: row.approved_at,
    approvedBy: row.approved_by,
  };
}

function toChange(row: ChangeRow): SoulChange {
  const reasons: unknown = JSON.parse(row.reasons);
  return {
    id: row.id,
    userId: row.user_id,
    path: row.path,
    beforeSha256: row.before_sha256,
    before: row.before_absent === 1 ? null : row.before,
    after: row.after,
    reasons: Array.isArray(reasons) ? reasons.map(String) : [],
    source: row.source,
    status: row.status,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    applied: row.applied === 1,
  };
}
