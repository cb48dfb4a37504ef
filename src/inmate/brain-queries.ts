import {
  type AgentRuntime,
  type CronScheduler,
  JobStore,
  type Promotion,
  readGuardedPromptFiles,
} from "../agent/index.js";
import type {
  BrainQuery,
  CronJobState,
  MemoryPromotion,
  QueryRequest,
  ToolAuditEntry,
} from "../contracts/cell/index.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../core/index.js";
import { reportBrainState } from "./brain-state.js";
import type { QueryOutcome } from "./cell-handler.js";
import { answerForget, hitToWire } from "./memory-answers.js";

interface AuditRow {
  id: string;
  ts: string;
  session_id: string;
  agent: string;
  tool: string;
  call_id: string;
  args: string;
  outcome: string;
  is_error: number;
  duration_ms: number;
  summary: string;
}

/** What the prompt files may hold together: well under a frame (8 MiB), far above any real persona. */
const MAX_PROMPT_FILE_BYTES = 4 * 1024 * 1024;

export interface BrainQueries {
  answer(request: QueryRequest): Promise<QueryOutcome>;
  /** A file of the brain changed through the warden: the next search indexes before it looks. */
  markChanged(): void;
  /** Indexes what changed through the warden, if anything did (before a turn, so it recalls the edit). */
  indexChanges(): Promise<void>;
}

/**
 * Answers the warden's questions about the brain database (memory search and index status, the cron
 * scheduler's jobs with their state, the tool-call audit trail). A failure is an answer too, never a throw.
 */
export function createBrainQueries(runtime: AgentRuntime, scheduler: CronScheduler): BrainQueries {
  const jobs = new JobStore(runtime.db);
  let changed = false;
  const indexChanges = async () => {
    if (!changed) return;
    changed = false;
    await runtime.memory.index();
  };

  async function run(request: QueryRequest): Promise<QueryOutcome> {
    const { query } = request;
    switch (query.kind) {
      case "memory_search": {
        // An edit through the inspector reaches the index by the watcher's debounce; a search right after it
        // must already see it, so index the changed files first.
        await indexChanges();
        const hits = await runtime.memory.recall(query.text, {
          ...(query.mode ? { mode: query.mode } : {}),
          ...(query.limit ? { topK: query.limit } : {}),
        });
        return { answer: { kind: "memory_search", hits: hits.map(hitToWire) } };
      }
      case "memory_forget": {
        // A forget plans on the markdown as it is now, but an edit through the inspector must be indexed first
        // so that a chunk id from a search right after it is known.
        await indexChanges();
        return { answer: await answerForget(runtime, query, new Date(request.timestamp)) };
      }
      case "memory_status": {
        const s = runtime.memory.status();
        return {
          answer: {
            kind: "memory_status",
            status: {
              files: s.files,
              chunks: s.chunks,
              embedder: s.embedder,
              embedder_stale: s.embedderStale,
              database_bytes: s.databaseBytes,
              last_indexed_at: s.lastIndexedAt,
              skipped: s.skipped,
            },
          },
        };
      }
      case "cron_jobs": {
        // The watcher reloads jobs.toml after a debounce; the list must show what the file says now.
        scheduler.reload();
        const rows = new Map(jobs.list().map((row) => [row.jobId, row]));
        const list: CronJobState[] = scheduler.definitions().map((job) => {
          const row = rows.get(job.id);
          return {
            ...job,
            next_run: row?.nextRun ?? null,
            last_run: row?.lastRun ?? null,
            status: row?.status ?? (job.enabled ? "scheduled" : "disabled"),
            last_result_ref: row?.lastResultRef ?? null,
            last_error: row?.lastError ?? null,
          };
        });
        const problem = scheduler.lastError?.message;
        return { answer: { kind: "cron_jobs", jobs: list, ...(problem ? { file_error: problem } : {}) } };
      }
      case "prompt_files": {
        // The profiles as the next turn will read them, so a persona file a profile names now is covered.
        runtime.refreshConfig();
        const profiles = [...runtime.runtimeConfig.profiles.values()].map((p) => p.profile);
        const files = await readGuardedPromptFiles(runtime.brain, profiles);
        const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text ?? ""), 0);
        // Past this the answer would not fit in a frame; refusing makes the warden refuse turns instead of
        // letting files it cannot check reach the prompt.
        if (bytes > MAX_PROMPT_FILE_BYTES)
          throw new InvalidInputError(
            "prompt_files",
            `the prompt files hold ${bytes} bytes, more than the ${MAX_PROMPT_FILE_BYTES} the soul guard checks`,
          );
        return {
          answer: { kind: "prompt_files", files: files.map((f) => ({ path: f.path, content: f.text })) },
        };
      }
      case "brain_state":
        // For a host that cannot read this brain (a disk image): what its history records after a change.
        return { answer: reportBrainState(runtime.brain.root) };
      case "tool_audit":
        return { answer: { kind: "tool_audit", entries: auditEntries(runtime, query) } };
      case "memory_promotions": {
        const list = runtime.conversations.promotions.list(query.status);
        return { answer: { kind: "memory_promotions", proposals: list.map(toWire) } };
      }
      case "memory_promotion_decide": {
        // Approved by the owner through the warden: the fact is appended to memory.md now, with its source.
        const decided = await runtime.conversations.promotions.decide(query.id, query.decision, {
          actor: "user",
          at: new Date(request.timestamp),
        });
        return { answer: { kind: "memory_promotion_decide", proposal: toWire(decided) } };
      }
    }
  }

  return {
    markChanged() {
      changed = true;
    },
    indexChanges,
    async answer(request) {
      try {
        return await run(request);
      } catch (error) {
        const code =
          error instanceof NotFoundError
            ? "not_found"
            : error instanceof ConflictError
              ? "conflict"
              : error instanceof InvalidInputError
                ? "invalid"
                : "failed";
        return { error: { code, message: (error as Error).message.slice(0, 500) || "failed" } };
      }
    },
  };
}

function toWire(p: Promotion): MemoryPromotion {
  return {
    id: p.id,
    chunk_id: p.chunkId,
    path: p.path,
    headings: p.headings,
    text: p.text,
    sessions: p.sessions,
    days: p.days,
    status: p.status,
    created_at: p.createdAt,
    decided_at: p.decidedAt,
    result_ref: p.resultRef,
  };
}

function auditEntries(
  runtime: AgentRuntime,
  query: Extract<BrainQuery, { kind: "tool_audit" }>,
): ToolAuditEntry[] {
  const where: string[] = [];
  const params: Record<string, string | number> = { limit: query.limit ?? 100 };
  if (query.session_id !== undefined) {
    where.push("session_id = @session");
    params.session = query.session_id;
  }
  if (query.tool !== undefined) {
    where.push("tool = @tool");
    params.tool = query.tool;
  }
  if (query.outcome !== undefined) {
    where.push("outcome = @outcome");
    params.outcome = query.outcome;
  }
  const rows = runtime.db
    .prepare(
      `SELECT id, ts, session_id, agent, tool, call_id, args, outcome, is_error, duration_ms, summary
       FROM audit_tool_calls ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY ts DESC, id DESC LIMIT @limit`,
    )
    .all(params) as AuditRow[];
  return rows.map((r) => ({ ...r, is_error: r.is_error !== 0 }));
}
