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
      "query.kind: must be a query of kind memory_search, memory_status, cron_jobs, tool_audit, memory_promotions or memory_promotion_decide",
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
});
