import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { IronclawError, ironclawHome, NotFoundError } from "../../core/index.js";
import {
  AuditStore,
  type DiffLine,
  diffLines,
  HOST_DB_FILE,
  migrateAuditTables,
  migrateSoulTables,
  type SoulChange,
  SoulStore,
} from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const SHORT_DIFF_LINES = 6;
const SHORT_LINE = 100;

const CHANGE_ID = { name: "change-id", required: true, description: "the id pending lists" } as const;
const JSON_OUTPUT = jsonOption("the change(s) with their diff");
const BY = {
  name: "by",
  type: "string",
  valueName: "name",
  description: "who decided, for the audit trail (default cli:<your user name>)",
} as const;

const pending = defineCommand({
  name: "pending",
  summary: "the held changes, oldest first: id, user, when, why, and the first changed lines",
  options: [
    { name: "user", type: "string", valueName: "id", description: "only this user's changes" },
    JSON_OUTPUT,
  ],
  async run({ options }, io) {
    return withSoulStore(io, (store) => {
      const changes = store.pending(options.user);
      if (options.json) println(io.stdout, JSON.stringify(changes.map(changeJson)));
      else if (changes.length === 0) println(io.stdout, "no pending soul changes");
      else for (const change of changes) printSummary(io, change);
      return 0;
    });
  },
});

const show = defineCommand({
  name: "show",
  summary: "one change with its full diff against the file's approved version",
  positionals: [CHANGE_ID],
  options: [JSON_OUTPUT],
  async run({ options, args }, io) {
    return withSoulStore(io, (store) => {
      const change = store.get(args["change-id"]);
      if (!change) throw new NotFoundError("soul change", args["change-id"]);
      if (options.json) println(io.stdout, JSON.stringify(changeJson(change)));
      else printFull(io, change);
      return 0;
    });
  },
});

const approve = defineCommand({
  name: "approve",
  summary: "makes the change the file's approved version; the agent resumes on its next message",
  positionals: [CHANGE_ID],
  options: [BY],
  async run({ options, args }, io) {
    return decide("approve", args["change-id"], options.by, io);
  },
});

const reject = defineCommand({
  name: "reject",
  summary: "keeps the approved version; the warden writes it back into the brain before the next message",
  positionals: [CHANGE_ID],
  options: [BY],
  async run({ options, args }, io) {
    return decide("reject", args["change-id"], options.by, io);
  },
});

export const soulCommand = defineGroup({
  name: "soul",
  summary: "list, show, approve or reject prompt file changes held by the soul guard",
  description: `Changes to a user's prompt files (soul.md, identity.md, instructions/*.md, persona files) that the
soul guard held; while one is pending that user's agent is halted.
Reads and writes <IRONCLAW_HOME>/host.db; the warden may be running: it reads these decisions before every turn.`,
  subcommands: [pending, show, approve, reject],
});

function decide(
  verdict: "approve" | "reject",
  id: string,
  by: string | undefined,
  io: CliIo,
): Promise<number> {
  return withSoulStore(io, (store) => {
    const actor = by ?? defaultActor(io.env);
    const change = verdict === "approve" ? store.approve(id, actor) : store.reject(id, actor);
    const left = store.pending(change.userId).length;
    println(
      io.stdout,
      verdict === "approve"
        ? `approved change ${change.id} to ${change.path} for user ${change.userId}: it is now the approved version`
        : `rejected change ${change.id} to ${change.path} for user ${change.userId}: the warden restores the approved version`,
    );
    println(
      io.stdout,
      left === 0
        ? "the agent resumes on its next message"
        : `the agent stays halted: ${left} more pending change${left === 1 ? "" : "s"} for this user`,
    );
    return 0;
  });
}

async function withSoulStore(io: CliIo, work: (store: SoulStore) => number): Promise<number> {
  const db = openHostDatabase(io);
  try {
    const audit = new AuditStore(db);
    return work(new SoulStore(db, { audit: (entry) => audit.record(entry) }));
  } finally {
    db.close();
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
    path: change.path,
    source: change.source,
    status: change.status,
    created_at: change.createdAt,
    decided_at: change.decidedAt,
    decided_by: change.decidedBy,
    applied: change.applied,
    reasons: change.reasons,
    before_sha256: change.beforeSha256,
    created: change.before === null,
    deleted: change.after === null,
    diff: diffLines(change.before ?? "", change.after ?? ""),
  };
}

function printSummary(io: CliIo, change: SoulChange): void {
  println(
    io.stdout,
    `${change.id}  user ${change.userId}  ${change.path}  ${change.createdAt}  from ${change.source}`,
  );
  for (const reason of change.reasons) println(io.stdout, `  why: ${visible(reason)}`);
  const changed = diffLines(change.before ?? "", change.after ?? "").filter((d) => d.op !== " ");
  for (const d of changed.slice(0, SHORT_DIFF_LINES)) println(io.stdout, `  ${formatLine(d, SHORT_LINE)}`);
  if (changed.length > SHORT_DIFF_LINES)
    println(
      io.stdout,
      `  … ${changed.length - SHORT_DIFF_LINES} more changed lines: ironclaw soul show ${change.id}`,
    );
  println(io.stdout);
}

function printFull(io: CliIo, change: SoulChange): void {
  println(io.stdout, `change ${change.id} to ${change.path} for user ${change.userId}: ${change.status}`);
  println(io.stdout, `from ${change.source} at ${change.createdAt}`);
  if (change.decidedAt) println(io.stdout, `decided by ${change.decidedBy} at ${change.decidedAt}`);
  for (const reason of change.reasons) println(io.stdout, `why: ${visible(reason)}`);
  println(
    io.stdout,
    change.before === null
      ? `--- (no approved ${change.path})`
      : `--- approved ${change.path} (sha256 ${change.beforeSha256.slice(0, 12)})`,
  );
  println(io.stdout, change.after === null ? `+++ (${change.path} deleted)` : `+++ changed ${change.path}`);
  for (const d of diffLines(change.before ?? "", change.after ?? "")) println(io.stdout, formatLine(d));
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
