import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { IronclawError, ironclawHome, NotFoundError } from "../../core/index.js";
import { AuditStore, migrateAuditTables } from "../../warden/audit-store.js";
import { HOST_DB_FILE } from "../../warden/host-db.js";
import { type DiffLine, diffLines } from "../../warden/soul-guard.js";
import { migrateSoulTables, type SoulChange, SoulStore } from "../../warden/soul-store.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw soul pending [--user <id>] [--json]
       ironclaw soul show <change-id> [--json]
       ironclaw soul approve <change-id> [--by <name>]
       ironclaw soul reject <change-id> [--by <name>]

Changes to a user's soul.md that the soul guard held; while one is pending that user's agent is halted.
pending   the held changes, oldest first: id, user, when, why, and the first changed lines
show      one change with its full diff against the approved soul.md
approve   makes the change the approved soul.md; the agent resumes on its next message
reject    keeps the approved soul.md; the warden writes it back into the brain before the next message
--by      who decided, for the audit trail (default cli:<your user name>)

Reads and writes <IRONCLAW_HOME>/host.db; the warden may be running: it reads these decisions before every turn.`;

const SHORT_DIFF_LINES = 6;
const SHORT_LINE = 100;

export const soulCommand: CliCommand = {
  name: "soul",
  summary: "list, show, approve or reject soul.md changes held by the soul guard",
  usage,
  async run(argv, io) {
    const { values, positionals } = parseSoulArgs(argv);
    const [mode, id, ...extra] = positionals;
    if (mode !== "pending" && mode !== "show" && mode !== "approve" && mode !== "reject")
      throw new UsageError(mode === undefined ? "missing action" : `unknown action '${mode}'`);
    if (mode === "pending" ? id !== undefined : extra.length > 0)
      throw new UsageError(`unexpected argument '${mode === "pending" ? id : extra[0]}'`);
    if (mode !== "pending" && id === undefined) throw new UsageError("missing <change-id>");

    const db = openHostDatabase(io);
    try {
      const audit = new AuditStore(db);
      const store = new SoulStore(db, { audit: (entry) => audit.record(entry) });
      if (mode === "pending") {
        const changes = store.pending(values.user);
        if (values.json) println(io.stdout, JSON.stringify(changes.map(changeJson)));
        else if (changes.length === 0) println(io.stdout, "no pending soul changes");
        else for (const change of changes) printSummary(io, change);
        return 0;
      }
      const changeId = id ?? "";
      if (mode === "show") {
        const change = store.get(changeId);
        if (!change) throw new NotFoundError("soul change", changeId);
        if (values.json) println(io.stdout, JSON.stringify(changeJson(change)));
        else printFull(io, change);
        return 0;
      }
      const by = values.by ?? defaultActor(io.env);
      const change = mode === "approve" ? store.approve(changeId, by) : store.reject(changeId, by);
      const left = store.pending(change.userId).length;
      println(
        io.stdout,
        mode === "approve"
          ? `approved soul change ${change.id} for user ${change.userId}: it is now the approved soul.md`
          : `rejected soul change ${change.id} for user ${change.userId}: the warden restores the approved soul.md`,
      );
      println(
        io.stdout,
        left === 0
          ? "the agent resumes on its next message"
          : `the agent stays halted: ${left} more pending change${left === 1 ? "" : "s"} for this user`,
      );
      return 0;
    } finally {
      db.close();
    }
  },
};

function parseSoulArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { user: { type: "string" }, json: { type: "boolean" }, by: { type: "string" } },
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Opens the warden's database; never creates it, so a mistyped IRONCLAW_HOME is reported, not populated. */
function openHostDatabase(io: CliIo): Database.Database {
  const file = join(ironclawHome(io.env), HOST_DB_FILE);
  if (!existsSync(file))
    throw new IronclawError(
      "not_found",
      `no host database at ${file} (has the warden run with this IRONCLAW_HOME?)`,
    );
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.transaction(() => {
      migrateSoulTables(db);
      migrateAuditTables(db);
    }).immediate();
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function defaultActor(env: NodeJS.ProcessEnv): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry (some containers): fall back to the login variables.
  }
  return `cli:${name || env.USER || env.LOGNAME || "unknown"}`;
}

function changeJson(change: SoulChange) {
  return {
    id: change.id,
    user_id: change.userId,
    source: change.source,
    status: change.status,
    created_at: change.createdAt,
    decided_at: change.decidedAt,
    decided_by: change.decidedBy,
    applied: change.applied,
    reasons: change.reasons,
    before_sha256: change.beforeSha256,
    deleted: change.after === null,
    diff: diffLines(change.before, change.after ?? ""),
  };
}

function printSummary(io: CliIo, change: SoulChange): void {
  println(io.stdout, `${change.id}  user ${change.userId}  ${change.createdAt}  from ${change.source}`);
  for (const reason of change.reasons) println(io.stdout, `  why: ${visible(reason)}`);
  const changed = diffLines(change.before, change.after ?? "").filter((d) => d.op !== " ");
  for (const d of changed.slice(0, SHORT_DIFF_LINES)) println(io.stdout, `  ${formatLine(d, SHORT_LINE)}`);
  if (changed.length > SHORT_DIFF_LINES)
    println(
      io.stdout,
      `  … ${changed.length - SHORT_DIFF_LINES} more changed lines: ironclaw soul show ${change.id}`,
    );
  println(io.stdout);
}

function printFull(io: CliIo, change: SoulChange): void {
  println(io.stdout, `soul change ${change.id} for user ${change.userId}: ${change.status}`);
  println(io.stdout, `from ${change.source} at ${change.createdAt}`);
  if (change.decidedAt) println(io.stdout, `decided by ${change.decidedBy} at ${change.decidedAt}`);
  for (const reason of change.reasons) println(io.stdout, `why: ${visible(reason)}`);
  println(io.stdout, `--- approved soul.md (sha256 ${change.beforeSha256.slice(0, 12)})`);
  println(io.stdout, change.after === null ? "+++ (soul.md deleted)" : "+++ changed soul.md");
  for (const d of diffLines(change.before, change.after ?? "")) println(io.stdout, formatLine(d));
}

function formatLine(d: DiffLine, max = Number.POSITIVE_INFINITY): string {
  const text = d.text.length > max ? `${d.text.slice(0, max)}…` : d.text;
  return `${d.op} ${visible(text)}`;
}

/**
 * The agent wrote this text: control and bidirectional-override characters are shown as \u{…} escapes, so an escape sequence or a
 * reordering mark cannot erase, recolour or rearrange a line on the reviewer's terminal and hide what is being approved.
 */
function visible(text: string): string {
  return text.replace(
    /[\p{Cc}\u200b-\u200f\u2028-\u202e\u2066-\u2069]/gu,
    (c) => `\\u{${c.charCodeAt(0).toString(16)}}`,
  );
}
