import { describe, expect, it } from "vitest";
import { protocolMessageSchema } from "./protocol-message.js";

const header = { user_id: "u-1", session_id: "cell", msg_id: 3, timestamp: "2026-03-14T09:12:03Z" };
const issues = (value: unknown) => {
  const result = protocolMessageSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("brain queries on the protocol", () => {
  it("accepts each kind of question and its answer", () => {
    for (const query of [
      { kind: "memory_search", text: "quince", mode: "hybrid", limit: 5 },
      { kind: "memory_status" },
      { kind: "cron_jobs" },
      { kind: "tool_audit", session_id: "s1", tool: "bash", outcome: "ok", limit: 10 },
    ])
      expect(issues({ type: "QueryRequest", ...header, query }), query.kind).toEqual([]);
    expect(
      issues({
        type: "QueryResult",
        ...header,
        reply_to: 3,
        answer: {
          kind: "memory_search",
          hits: [
            {
              id: "c1",
              path: "memory.md",
              headings: ["Memory", "Garden"],
              start_line: 7,
              end_line: 9,
              text: "quince",
              score: 0.4,
              semantic: { similarity: null, score: 0 },
              lexical: { bm25: 2.1, score: 1 },
            },
          ],
        },
      }),
    ).toEqual([]);
  });

  it("names the field and the rule of a bad question", () => {
    expect(issues({ type: "QueryRequest", ...header, query: { kind: "memory_search", text: "" } })).toEqual([
      "query.text: must not be empty",
    ]);
    expect(issues({ type: "QueryRequest", ...header, query: { kind: "tool_audit", limit: 501 } })).toEqual([
      "query.limit: must be at most 500",
    ]);
    expect(
      issues({
        type: "QueryRequest",
        ...header,
        query: { kind: "memory_promotion_decide", id: "p1", decision: "ok" },
      }),
    ).toEqual(["query.decision: must be one of approve, reject"]);
    expect(issues({ type: "QueryRequest", ...header, query: { kind: "drop_tables" } })).toEqual([
      "query.kind: must be a query of kind memory_search, memory_status, cron_jobs, tool_audit, memory_promotions, memory_promotion_decide, memory_forget, prompt_files or brain_state",
    ]);
  });

  it("wants exactly one of an answer and an error", () => {
    const result = { type: "QueryResult", ...header, reply_to: 3 };
    expect(issues(result)).toEqual(["answer: exactly one of answer and error must be given"]);
    expect(
      issues({ ...result, answer: { kind: "cron_jobs", jobs: [] }, error: { code: "failed", message: "x" } }),
    ).toEqual(["error: exactly one of answer and error must be given"]);
    expect(issues({ ...result, error: { code: "unsupported", message: "no queries here" } })).toEqual([]);
  });

  it("carries a forget: the question, its report without the text once applied, and the notice to the warden", () => {
    expect(
      issues({
        type: "QueryRequest",
        ...header,
        query: { kind: "memory_forget", target: "pin", apply: true },
      }),
    ).toEqual([]);
    expect(
      issues({
        type: "QueryRequest",
        ...header,
        query: { kind: "memory_forget", target: "pin", apply: "yes" },
      }),
    ).toEqual(["query.apply: must be true or false"]);
    const place = { path: "memory.md", headings: ["Memory"], start_line: 3, end_line: 4, hash: "sha256:ab" };
    expect(
      issues({
        type: "QueryResult",
        ...header,
        reply_to: 3,
        answer: { kind: "memory_forget", applied: true, places: [place], skipped: [], purge_ms: 12 },
      }),
    ).toEqual([]);
    expect(issues({ type: "MemoryForgotten", ...header, scope: { query: "pin" }, places: 1 })).toEqual([]);
    expect(
      issues({ type: "MemoryForgotten", ...header, scope: { passages: ["The pin is 7781."] }, places: 1 }),
    ).toEqual([]);
    expect(issues({ type: "MemoryForgotten", ...header, scope: { query: "" }, places: 1 })).toEqual([
      "scope.query: must not be empty: give a query or a chunk id",
    ]);
    expect(issues({ type: "MemoryForgotten", ...header, scope: { everything: true }, places: 1 })).toEqual([
      "scope: must be { query } or { passages }",
    ]);
  });

  it("explains a hit in the shape the UI reads, and refuses an unknown floor", () => {
    const hit = {
      id: "c1",
      path: "logs/2026-03-02.md",
      headings: [],
      start_line: 1,
      end_line: 2,
      text: "roses",
      score: 0.4,
      semantic: { similarity: 0.3, score: 0.2 },
      lexical: { bm25: 2.1, score: 1 },
      explanation: {
        fusion: "coverage",
        semantic_rank: 2,
        lexical_rank: 1,
        coverage: 1,
        fused: 0.5,
        recency: { source: "dated", date: "2026-03-02", age_days: 2, half_life_days: 90, factor: 0.98 },
        floor: { min_score: 0.23, passed: "above" },
        mmr: { lambda: 0.7, redundancy: 0.1, rank_before: 1 },
        summary: "coverage: semantic #2, lexical #1",
      },
    };
    const answer = (h: unknown) => ({
      type: "QueryResult",
      ...header,
      reply_to: 3,
      answer: { kind: "memory_search", hits: [h] },
    });
    expect(issues(answer(hit))).toEqual([]);
    expect(
      issues(
        answer({ ...hit, explanation: { ...hit.explanation, floor: { min_score: 0, passed: "luck" } } }),
      ),
    ).toEqual(["answer.hits.0.explanation.floor.passed: must be one of above, keyword, best, named, off"]);
  });
});
