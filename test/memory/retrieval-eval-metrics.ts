// Scoring of the retrieval evaluation (test/fixtures/memory-eval): recall@5 and MRR per query class.
import type { HybridSearch, SearchOptions } from "../../src/memory/index.js";

export const CLASSES = ["keyword", "paraphrase", "temporal", "multi-hop"] as const;
export type QueryClass = (typeof CLASSES)[number];

export interface EvalQuery {
  query: string;
  class: QueryClass;
  expected: string[];
  as_of?: string;
}

export interface Scores {
  recall: number;
  mrr: number;
  count: number;
}

/** Per class, overall, and for keyword and paraphrase queries answered by a dated file (a log or transcript). */
export type Report = Record<QueryClass | "all" | "dated", Scores>;

const K = 5;
const DEPTH = 10;

/** Whether a keyword or paraphrase query is answered by a dated file: what recency could push out. */
export function answeredByDatedFile(q: EvalQuery): boolean {
  return (
    (q.class === "keyword" || q.class === "paraphrase") && /^(logs|sessions)\//.test(q.expected[0] ?? "")
  );
}

/**
 * Runs every query with `options`, asked on its as_of date (or the set's "now"): recall@5 is the share of its
 * expected files among the files of the top 5 hits; MRR the reciprocal rank of the first expected file in the
 * top 10 (0 when none is there).
 */
export async function evaluate(
  search: HybridSearch,
  queries: readonly EvalQuery[],
  now: string,
  options: SearchOptions,
): Promise<Report> {
  const sums = new Map<string, { recall: number; mrr: number; count: number }>();
  const add = (group: string, recall: number, rr: number) => {
    const s = sums.get(group) ?? { recall: 0, mrr: 0, count: 0 };
    s.recall += recall;
    s.mrr += rr;
    s.count++;
    sums.set(group, s);
  };
  for (const q of queries) {
    const hits = await search.search(q.query, { ...options, topK: DEPTH, asOf: new Date(q.as_of ?? now) });
    const paths = hits.map((h) => h.path);
    const top = new Set(paths.slice(0, K));
    const recall = q.expected.filter((p) => top.has(p)).length / q.expected.length;
    const first = paths.findIndex((p) => q.expected.includes(p));
    const rr = first < 0 ? 0 : 1 / (first + 1);
    add(q.class, recall, rr);
    add("all", recall, rr);
    if (answeredByDatedFile(q)) add("dated", recall, rr);
  }
  const report = {} as Report;
  for (const group of [...CLASSES, "all", "dated"] as const) {
    const s = sums.get(group) ?? { recall: 0, mrr: 0, count: 0 };
    report[group] = { recall: s.recall / (s.count || 1), mrr: s.mrr / (s.count || 1), count: s.count };
  }
  return report;
}

/** One line per configuration: recall@5 / MRR for each group. */
export function formatReport(rows: Array<[string, Report]>): string {
  const groups = ["all", ...CLASSES, "dated"] as const;
  const head = `${"configuration".padEnd(30)}${groups.map((g) => g.padStart(15)).join("")}`;
  const lines = rows.map(
    ([name, r]) =>
      `${name.padEnd(30)}${groups.map((g) => `${r[g].recall.toFixed(3)}/${r[g].mrr.toFixed(3)}`.padStart(15)).join("")}`,
  );
  const counts = groups.map((g) => `${g} ${rows[0]?.[1][g].count ?? 0}`).join(", ");
  return `recall@${K} / MRR (top ${DEPTH}); queries: ${counts}\n${head}\n${lines.join("\n")}`;
}
