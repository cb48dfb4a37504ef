import { PROMOTION_STATES } from "../contracts/index.js";
import { ConflictError, NotFoundError, newId, sha256Hex } from "../core/index.js";
import {
  type BrainMemory,
  DEFAULT_PROMOTION_RULE,
  isPromotablePath,
  type PromotionCandidate,
  type PromotionRule,
  promotionEntry,
  type RecallUse,
  type SearchHit,
  selectPromotions,
} from "../memory/index.js";
import type { AgentDatabase } from "./agent-db.js";
import type { MemoryChangeLog } from "./memory-change-log.js";

export { PROMOTION_STATES };
export type PromotionState = (typeof PROMOTION_STATES)[number];

/** A candidate the rule found, once it is a proposal the user decides. */
export interface Promotion extends PromotionCandidate {
  id: string;
  status: PromotionState;
  createdAt: string;
  decidedAt: string | null;
  /** Where an approved fact was written: `memory.md#L12-L16`. */
  resultRef: string | null;
}

/**
 * Promotion of recalled passages into memory.md: which passages answers used, per session
 * (`agent_recall_uses`), the proposals the rule makes from them (`agent_promotions`), and the owner's decision.
 * A proposal is only ever written to memory.md when a person approves it; a rejected passage is not proposed
 * again.
 */
export class PromotionStore {
  // Decisions one at a time: two approvals of one proposal racing must not append the fact twice.
  private decisions: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: AgentDatabase,
    private readonly memory: Pick<BrainMemory, "remember">,
    private readonly changes: MemoryChangeLog,
    /** Read at each proposal, so an edit of irowclaw.toml's [promotion] counts from the next turn; null: off. */
    private readonly rule: () => PromotionRule | null = () => DEFAULT_PROMOTION_RULE,
  ) {}

  /** Records that an answer of `sessionId` used these passages (once per passage and session). */
  recordUses(sessionId: string, hits: readonly SearchHit[], at: Date): void {
    const insert = this.db.prepare<[string, string, string, string, string, string, string]>(
      `INSERT OR IGNORE INTO agent_recall_uses (chunk_id, session_id, day, path, headings, text, at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const ts = at.toISOString();
    this.db.transaction(() => {
      for (const hit of hits) {
        if (!isPromotablePath(hit.path)) continue;
        insert.run(hit.id, sessionId, ts.slice(0, 10), hit.path, JSON.stringify(hit.headings), hit.text, ts);
      }
    });
  }

  /** Applies the rule at `now` and stores a pending proposal for each passage not proposed before. */
  propose(now: Date): Promotion[] {
    const rule = this.rule();
    if (!rule) return [];
    const rows = this.db
      .prepare<[], UseRow>(
        "SELECT chunk_id, session_id, day, path, headings, text, at FROM agent_recall_uses",
      )
      .all();
    const uses: RecallUse[] = rows.map((r) => ({
      chunkId: r.chunk_id,
      sessionId: r.session_id,
      day: r.day,
      path: r.path,
      headings: JSON.parse(r.headings) as string[],
      text: r.text,
      at: r.at,
    }));
    const insert = this.db.prepare<[string, string, string, string, string, number, number, string]>(
      `INSERT OR IGNORE INTO agent_promotions (id, chunk_id, path, headings, text, sessions, days, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    );
    const made: string[] = [];
    this.db.transaction(() => {
      for (const c of selectPromotions(uses, rule, now)) {
        const id = newId();
        const added = insert.run(
          id,
          c.chunkId,
          c.path,
          JSON.stringify(c.headings),
          c.text,
          c.sessions,
          c.days,
          now.toISOString(),
        );
        if (added.changes > 0) made.push(id);
      }
    });
    return this.list().filter((p) => made.includes(p.id));
  }

  list(status?: PromotionState): Promotion[] {
    return this.db
      .prepare<[{ status: string | null }], PromotionRow>(
        `SELECT * FROM agent_promotions WHERE @status IS NULL OR status = @status ORDER BY created_at DESC, id DESC`,
      )
      .all({ status: status ?? null })
      .map(toPromotion);
  }

  /** Approves (appending the fact to memory.md with its source) or rejects a pending proposal. */
  decide(id: string, decision: "approve" | "reject", scope: { actor: string; at: Date }): Promise<Promotion> {
    const run = this.decisions.then(() => this.decideNow(id, decision, scope));
    this.decisions = run.catch(() => undefined);
    return run;
  }

  private async decideNow(
    id: string,
    decision: "approve" | "reject",
    scope: { actor: string; at: Date },
  ): Promise<Promotion> {
    const current = this.list().find((p) => p.id === id);
    if (!current) throw new NotFoundError("promotion", id);
    if (current.status !== "pending")
      throw new ConflictError(`promotion ${id} was already ${current.status}`);
    let resultRef: string | null = null;
    if (decision === "approve") {
      const day = scope.at.toISOString().slice(0, 10);
      const entry = promotionEntry(
        current,
        `used in ${current.sessions} sessions on ${current.days} days; approved ${day}`,
      );
      const saved = await this.memory.remember(entry.text, {
        target: "memory",
        title: entry.title,
        now: scope.at,
      });
      resultRef = `${saved.path}#L${saved.startLine}-L${saved.endLine}`;
      await this.changes.record(
        "promote",
        [
          {
            path: saved.path,
            headings: [entry.title],
            startLine: saved.startLine,
            endLine: saved.endLine,
            hash: `sha256:${sha256Hex(entry.text)}`,
          },
        ],
        scope,
      );
    }
    this.db
      .prepare<[string, string, string | null, string]>(
        "UPDATE agent_promotions SET status = ?, decided_at = ?, result_ref = ? WHERE id = ? AND status = 'pending'",
      )
      .run(decision === "approve" ? "approved" : "rejected", scope.at.toISOString(), resultRef, id);
    return this.list().find((p) => p.id === id) as Promotion;
  }
}

interface UseRow {
  chunk_id: string;
  session_id: string;
  day: string;
  path: string;
  headings: string;
  text: string;
  at: string;
}

interface PromotionRow {
  id: string;
  chunk_id: string;
  path: string;
  headings: string;
  text: string;
  sessions: number;
  days: number;
  status: string;
  created_at: string;
  decided_at: string | null;
  result_ref: string | null;
}

function toPromotion(r: PromotionRow): Promotion {
  return {
    id: r.id,
    chunkId: r.chunk_id,
    path: r.path,
    headings: JSON.parse(r.headings) as string[],
    text: r.text,
    sessions: r.sessions,
    days: r.days,
    status: PROMOTION_STATES.find((s) => s === r.status) ?? "pending",
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    resultRef: r.result_ref,
  };
}
