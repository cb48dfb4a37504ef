import { InvalidInputError } from "../../core/index.js";
import type { Embedder } from "../embedders/embedder.js";
import type { IndexStore } from "../index/index.js";
import { explainHit, type Placed, type Ranked, type RankingExplanation } from "./ranking-explanation.js";
import { applyFloor, type FloorPass } from "./ranking-floor.js";
import { type Candidate, type Fused, fuseCandidates } from "./ranking-fusion.js";
import { rerankByMmr } from "./ranking-mmr.js";
import { ageInDays, isAfter, recencyFactor, type SourceAge, sourceAge } from "./ranking-recency.js";
import { completeLexical, completeSemantic, gatherCandidates } from "./retrieval-candidates.js";
import { LexicalQuery } from "./retrieval-lexical.js";
import { QueryVectorCache } from "./retrieval-query-cache.js";
import {
  checkSettings,
  DEFAULT_RETRIEVAL,
  definedSettings,
  type RetrievalSettings,
} from "./retrieval-settings.js";

export { checkSettings, DEFAULT_RETRIEVAL, type RetrievalSettings } from "./retrieval-settings.js";

export type SearchMode = "hybrid" | "lexical" | "semantic";

export interface SearchOptions extends Partial<RetrievalSettings> {
  /** `lexical` and `semantic` run one leg alone (for comparison and for `--mode` on the CLI). */
  mode?: SearchMode;
  signal?: AbortSignal;
  /**
   * Search the brain as it was on this day: dated sources from after it are left out, and ages count from it.
   * Without it, ages count from the search's clock and nothing is left out.
   */
  asOf?: Date;
}

export interface HybridSearchOptions {
  /** Today, for recency; injectable so a ranking can be reproduced. */
  clock?: () => Date;
  /** Query vectors kept for repeated queries (0 turns the cache off). */
  queryCacheSize?: number;
}

/** One result with its provenance and both legs' scores, so a ranking can be explained. */
export interface SearchHit {
  id: string;
  path: string;
  headings: string[];
  startLine: number;
  endLine: number;
  text: string;
  /** The final relevance: fused, then multiplied by recency. MMR may order a hit below a lower score. */
  score: number;
  /** Cosine similarity (null when the leg did not run) and its 0..1 form as fused. */
  semantic: { similarity: number | null; score: number };
  /** FTS5 bm25 relevance, larger is better (null when the leg did not run or did not match), and its 0..1 form. */
  lexical: { bm25: number | null; score: number };
  explanation: RankingExplanation;
}

/**
 * Hybrid retrieval (seed 003 §6): candidates from both legs — FTS5 bm25 and vector cosine — are scored on both
 * and fused (ranking-fusion.ts); dated sources decay with age (ranking-recency.ts); a floor drops weak hits but
 * never exact keyword hits (ranking-floor.ts); MMR keeps near-duplicates from filling the list (ranking-mmr.ts);
 * a file the query names comes first (retrieval-paths.ts).
 */
export class HybridSearch {
  private readonly clock: () => Date;
  readonly queryVectors: QueryVectorCache;

  constructor(
    private readonly store: IndexStore,
    private readonly embedder: Embedder,
    private readonly defaults: RetrievalSettings = DEFAULT_RETRIEVAL,
    options: HybridSearchOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.queryVectors = new QueryVectorCache(options.queryCacheSize);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const settings = checkSettings({ ...DEFAULT_RETRIEVAL, ...this.defaults, ...definedSettings(options) });
    const mode = options.mode ?? "hybrid";
    const asOf = options.asOf;
    if (asOf !== undefined && !(asOf instanceof Date && Number.isFinite(asOf.getTime()))) {
      throw new InvalidInputError("asOf", `must be a valid date, got ${String(asOf)}`);
    }
    const now = asOf ?? this.clock();
    const lexical = mode === "semantic" ? undefined : new LexicalQuery(this.store.lexical, query);
    const queryVector =
      mode !== "lexical" && query.trim() !== ""
        ? await this.queryVectors.vectorOf(this.embedder, query, options.signal)
        : undefined;
    const weights =
      mode === "hybrid"
        ? settings
        : { semanticWeight: mode === "semantic" ? 1 : 0, lexicalWeight: mode === "lexical" ? 1 : 0 };
    // MMR chooses from more than it returns: the near-duplicates it passes over need replacements.
    const pool = settings.mmr ? Math.max(settings.topK * 3, 30) : settings.topK;
    // One read transaction: every statement sees the same snapshot, even while an indexer commits files.
    return this.store.read(() => {
      const { candidates, lexical: leg } = gatherCandidates(this.store, this.embedder, {
        lexical,
        queryVector,
        lexicalPool: Math.max(settings.topK * 5, 50),
        semanticPool: Math.max(settings.topK * 3, 30),
      });
      const named = lexical ? this.store.lexical.paths.namedFiles(query) : [];
      for (const path of named) {
        const rowid = this.store.lexical.paths.firstChunkOf(path);
        if (rowid !== undefined && !candidates.has(rowid))
          candidates.set(rowid, { rowid, similarity: null, bm25: null });
      }
      const paths = this.store.lexical.pathsOf([...candidates.keys()]);
      for (const rowid of candidates.keys()) {
        const path = paths.get(rowid);
        if (path === undefined || (asOf !== undefined && isAfter(sourceAge(path), asOf)))
          candidates.delete(rowid);
      }
      if (candidates.size === 0) return [];
      const list = [...candidates.values()];
      const factorOf = (c: Candidate) => this.factorOf(sourceAge(paths.get(c.rowid) ?? ""), settings, now);
      const fusion = {
        method: settings.fusion,
        ...weights,
        lexicalCeiling: lexical?.empty ? 0 : (lexical?.ceiling() ?? 0),
      };
      if (queryVector) completeSemantic(this.store, this.embedder, list, queryVector);
      if (lexical && !lexical.empty && mode === "hybrid") {
        completeLexical(lexical, list, leg, (unknown, bound) => {
          // The unknown candidates that would reach the returned part of the ranking if their bm25 were `bound`.
          const final = (f: Fused) => f.score * factorOf(f.c);
          const cut =
            fuseCandidates(list, fusion)
              .map(final)
              .sort((a, b) => b - a)[pool - 1] ?? -1;
          const raised = fuseCandidates(
            unknown.map((c) => ({ ...c, bm25: bound })),
            fusion,
          );
          return unknown.filter((_, i) => final(raised[i] as Fused) > cut);
        });
      }
      const ranked: Ranked[] = fuseCandidates(list, fusion)
        .filter(
          (f) => weights.semanticWeight > 0 || f.lexical > 0 || named.includes(paths.get(f.c.rowid) ?? ""),
        )
        .map((f) => {
          const path = paths.get(f.c.rowid) ?? "";
          const factor = factorOf(f.c);
          return { ...f, path, age: sourceAge(path), factor, fused: f.score, score: f.score * factor };
        })
        .sort((a, b) => b.score - a.score || a.c.rowid - b.c.rowid);
      return this.hits(this.place(ranked, named, settings, mode, pool), settings, now);
    });
  }

  private factorOf(age: SourceAge, settings: RetrievalSettings, now: Date): number {
    if (!settings.decay || age.kind !== "dated") return 1;
    return recencyFactor(ageInDays(age.date, now), settings.halfLifeDays, settings.decayFloor);
  }

  /** Named files first (each file's best chunk), then the floor, then MMR or plain score order. */
  private place(
    ranked: Ranked[],
    named: readonly string[],
    settings: RetrievalSettings,
    mode: SearchMode,
    pool: number,
  ): Placed[] {
    const rankBefore = new Map(ranked.map((r, i) => [r.c.rowid, i + 1]));
    const pinned: Placed[] = [];
    for (const path of named) {
      const best = ranked.find((r) => r.path === path);
      if (best && pinned.length < settings.topK) {
        pinned.push({ item: best, floor: "named", rankBefore: rankBefore.get(best.c.rowid) ?? 0 });
      }
    }
    const rest = ranked.filter((r) => !pinned.some((p) => p.item === r));
    const floored =
      mode === "hybrid"
        ? applyFloor(rest, settings.minScore)
        : rest.map((item) => ({ item, floor: "off" as FloorPass }));
    const k = settings.topK - pinned.length;
    if (!settings.mmr) {
      return [
        ...pinned,
        ...floored.slice(0, k).map((f) => ({ ...f, rankBefore: rankBefore.get(f.item.c.rowid) ?? 0 })),
      ];
    }
    const candidates = floored.slice(0, pool);
    const vectors = this.store.cache(this.embedder).forChunks(candidates.map((f) => f.item.c.rowid));
    const items = candidates.map((f) => ({ rowid: f.item.c.rowid, score: f.item.score, f }));
    const picked = rerankByMmr(items, vectors, settings.mmrLambda, k).map(({ item, redundancy }) => ({
      ...item.f,
      redundancy,
      rankBefore: rankBefore.get(item.rowid) ?? 0,
    }));
    return [...pinned, ...picked];
  }

  /** The chunks of the placed hits, in order, with their explanations. */
  private hits(placed: Placed[], settings: RetrievalSettings, now: Date): SearchHit[] {
    const chunks = new Map(
      this.store.chunksByRowid(placed.map((p) => p.item.c.rowid)).map((c) => [c.rowid, c]),
    );
    return placed.flatMap((p, i) => {
      const chunk = chunks.get(p.item.c.rowid);
      if (!chunk) return [];
      const { item } = p;
      return [
        {
          id: chunk.id,
          path: chunk.path,
          headings: chunk.headings,
          startLine: chunk.startLine,
          endLine: chunk.endLine,
          text: chunk.text,
          score: item.score,
          semantic: { similarity: item.c.similarity, score: item.semantic },
          lexical: { bm25: item.c.bm25, score: item.lexical },
          explanation: explainHit(
            p,
            i + 1,
            settings,
            item.age.kind === "dated" ? ageInDays(item.age.date, now) : 0,
          ),
        },
      ];
    });
  }
}
