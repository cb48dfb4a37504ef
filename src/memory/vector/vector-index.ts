import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { InvalidInputError } from "../../core/index.js";
import { dotProduct } from "../embedders/embedder.js";
import { CentroidTable, seededRandom, trainCentroids } from "./kmeans.js";
import { vectorFromBlob } from "./vector-blob.js";
import type { VectorCodes } from "./vector-codes.js";
import {
  LISTS_TRAINED_ON,
  LISTS_VERSION,
  ListCentroids,
  LOG_FLOOR,
  readMeta,
  writeMeta,
} from "./vector-lists.js";
import { VectorReplica } from "./vector-replica.js";
import { VectorTable } from "./vector-table.js";

export interface VectorHit {
  rowid: number;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

export interface VectorIndexTuning {
  /** Below this many vectors there is one list: a search scores every vector's code. */
  minVectorsForLists: number;
  /** Vectors per list when training. Many small lists let a search skip more of the far vectors. */
  vectorsPerList: number;
  /**
   * Share of the vectors a search scores at 100k vectors: lists are taken nearest centroid first until they hold
   * `probeShare · √(vectors · 100k)` of them. The share needed for the same recall falls as an index grows (on the
   * benchmark corpus 10 % at 100k and 3 % at 1M both found 98 % of the exact top 10), so the rows scored grow with
   * the square root of the index, not with the index.
   */
  probeShare: number;
  /** Lists scored at least, whatever their size. */
  minProbes: number;
  /** A search rescores `oversample · k` shortlisted rows with their stored floats. */
  oversample: number;
  /** Every search is `searchExact` (the reference a benchmark compares the approximate search with). */
  exact: boolean;
}

export const DEFAULT_VECTOR_TUNING: VectorIndexTuning = {
  minVectorsForLists: 20_000,
  vectorsPerList: 100,
  probeShare: 0.1,
  minProbes: 4,
  oversample: 2,
  exact: false,
};

/** Rows sampled per list to train centroids. */
const SAMPLE_PER_LIST = 16;
/** Log entries kept for connections to replay; one further behind reloads everything. */
const LOG_KEEP = 50_000;

/**
 * The semantic leg. The floats live in SQLite (`chunk_vectors`, see vector-table.ts); a search scores an in-memory
 * copy of them as int8 codes with a SIMD kernel (vector-codes.ts), then rescores a shortlist with the stored
 * floats, so the similarities returned are exact and only the shortlist can differ from an exact scan. Past
 * `minVectorsForLists` the codes are filed into k-means lists and a search scores only the lists nearest the
 * query: `probeShare` of the vectors at 100k, a smaller share beyond. The copy follows every committed write
 * (vector-replica.ts).
 */
export class VectorIndex {
  private readonly table: VectorTable;
  private readonly lists: ListCentroids;
  private readonly replica: VectorReplica;

  constructor(
    private readonly db: Database.Database,
    readonly dimensions: number,
    private readonly tuning: VectorIndexTuning = DEFAULT_VECTOR_TUNING,
  ) {
    VectorTable.ensure(db);
    this.table = new VectorTable(db);
    this.lists = new ListCentroids(db, dimensions);
    this.replica = new VectorReplica(db, this.table, this.lists, dimensions);
  }

  /** Creates the tables for a new embedder; the caller has already dropped those of another one. */
  static create(db: Database.Database, _dimensions: number): void {
    VectorTable.ensure(db);
    writeMeta(db, LISTS_VERSION, randomUUID());
  }

  static drop(db: Database.Database): void {
    VectorTable.drop(db);
    db.exec("DELETE FROM meta WHERE key LIKE 'vector_lists_%'");
  }

  /** Stores a vector (replacing the row's earlier one), filed into its nearest list. */
  insert(rowid: number, vector: Float32Array): void {
    this.checkDimensions("vector", vector);
    this.table.insert(rowid, this.lists.current().table?.nearest(vector) ?? 0, vector);
  }

  delete(rowid: number): void {
    this.table.delete(rowid);
  }

  /** The `k` nearest vectors, most similar first: approximate once lists exist, exact similarities always. */
  search(query: Float32Array, k: number): VectorHit[] {
    this.checkDimensions("query", query);
    if (!(Number.isInteger(k) && k >= 0))
      throw new InvalidInputError("k", `must be a whole number ≥ 0, got ${k}`);
    if (this.tuning.exact) return this.searchExact(query, k);
    const { codes, centroids } = this.replica.current();
    if (k === 0 || codes.size === 0) return [];
    const take = Math.max(k, Math.ceil(k * this.tuning.oversample));
    const lists = centroids ? this.probes(query, codes, centroids, take) : undefined;
    const shortlist = codes.shortlist(query, take, lists);
    const hits: VectorHit[] = [];
    for (const [rowid, vector] of this.table.vectors(shortlist.rowids))
      hits.push({ rowid, similarity: dotProduct(query, vector) });
    return hits.sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }

  /**
   * The exact `k` nearest vectors: sqlite-vec's distance over every stored float, none of this index's code
   * involved. The baseline that the approximate search is measured against; a search never needs it.
   */
  searchExact(query: Float32Array, k: number): VectorHit[] {
    this.checkDimensions("query", query);
    return this.table.nearest(query, k).map((row) => ({
      rowid: Number(row.rowid),
      // Unit vectors: |a − b|² = 2 − 2·cos.
      similarity: 1 - (row.distance * row.distance) / 2,
    }));
  }

  listCount(): number {
    return this.lists.current().table?.count ?? 1;
  }

  /** Which kernel scores the codes here ("simd" or "scalar"), for status output and benchmarks. */
  kernelKind(): "simd" | "scalar" {
    return this.replica.current().codes.kernelKind;
  }

  /**
   * Retrains the lists when the index has grown past the threshold or doubled (or shrunk to a quarter) since the
   * last training; returns whether it did. Also trims the write log.
   */
  rebalance(vectorCount: number): boolean {
    this.trimLog();
    const trainedOn = Number(readMeta(this.db, LISTS_TRAINED_ON) ?? 0);
    const hasLists = this.lists.current().table !== undefined;
    const wantLists = vectorCount >= this.tuning.minVectorsForLists;
    const stale = hasLists && (vectorCount > trainedOn * 2 || vectorCount < trainedOn / 4);
    if (wantLists === hasLists && !stale) return false;
    this.rebuild(wantLists ? Math.max(16, Math.round(vectorCount / this.tuning.vectorsPerList)) : 0);
    return true;
  }

  /**
   * Files every vector into `lists` k-means lists (0: one list, every search scores all codes). Training reads a
   * sample outside the write lock (centroids only need to be representative); filing runs in one transaction
   * that re-reads every row, so a vector written meanwhile is filed too and a reader sees old lists or new.
   */
  rebuild(lists: number): void {
    const dims = this.dimensions;
    const sample = lists > 0 ? this.sample(lists * SAMPLE_PER_LIST) : new Float32Array(0);
    const count = Math.min(lists, sample.length / dims);
    const centroids = count > 0 ? trainCentroids(sample, dims, count) : undefined;
    const table = centroids ? new CentroidTable(centroids, dims) : undefined;
    this.db
      .transaction(() => {
        const moves: Array<[number, number]> = [];
        for (const row of this.table.rows()) {
          const list = table ? table.nearest(vectorFromBlob(row.embedding)) : 0;
          if (list !== row.list) moves.push([Number(row.rowid), list]);
        }
        for (const [rowid, list] of moves) this.table.setList(rowid, list);
        ListCentroids.write(this.db, centroids, dims);
        writeMeta(this.db, LISTS_TRAINED_ON, String(this.table.count()));
        writeMeta(this.db, LISTS_VERSION, randomUUID());
      })
      .immediate();
  }

  /** The lists to score: nearest centroid first, until they hold the budget `probeShare` sets. */
  private probes(query: Float32Array, codes: VectorCodes, centroids: CentroidTable, take: number): number[] {
    const budget = Math.max(take, this.tuning.probeShare * Math.sqrt(codes.size * 100_000));
    // Rank only as many centroids as the budget is likely to need (lists vary in size); all of them if it is not.
    const likely =
      Math.ceil((1.5 * budget * centroids.count) / Math.max(1, codes.size)) + this.tuning.minProbes;
    const chosen: number[] = [];
    for (const count of [Math.min(likely, centroids.count), centroids.count]) {
      chosen.length = 0;
      let rows = 0;
      for (const list of centroids.rank(query, count)) {
        if (rows >= budget && chosen.length >= this.tuning.minProbes) return chosen;
        chosen.push(list);
        rows += codes.listSize(list);
      }
    }
    return chosen;
  }

  /**
   * Up to `size` stored vectors, a seeded sample, row-major. Rowids are nearly dense (chunk rowids), so random
   * rowids are looked up one by one, which at a million vectors costs a second where reading every row costs
   * several; where too few of them hit (a sparse table) every row is read and a reservoir keeps the sample.
   */
  private sample(size: number): Float32Array {
    const dims = this.dimensions;
    const random = seededRandom(7);
    const out = new Float32Array(size * dims);
    const { low, high } = this.table.rowidRange();
    const span = high - low + 1;
    if (span > size * 4) {
      const drawn = new Set<number>();
      let taken = 0;
      for (let tries = 0; taken < size && tries < size * 3; tries += 1000) {
        const batch: number[] = [];
        while (batch.length < 1000 && drawn.size < span) {
          const rowid = low + Math.floor(random() * span);
          if (!drawn.has(rowid)) batch.push(rowid);
          drawn.add(rowid);
        }
        for (const vector of this.table.vectors(batch).values()) {
          if (taken < size) out.set(vector, taken++ * dims);
        }
      }
      if (taken === size) return out;
    }
    let seen = 0;
    for (const row of this.table.rows()) {
      const at = seen < size ? seen : Math.floor(random() * (seen + 1));
      if (at < size) out.set(vectorFromBlob(row.embedding), at * dims);
      seen++;
    }
    return out.subarray(0, Math.min(seen, size) * dims);
  }

  private trimLog(): void {
    const last = this.table.lastSeq();
    const floor = Number(readMeta(this.db, LOG_FLOOR) ?? 0);
    if (last - floor <= LOG_KEEP) return;
    this.db
      .transaction(() => {
        this.table.trimLog(last - LOG_KEEP / 2);
        writeMeta(this.db, LOG_FLOOR, String(last - LOG_KEEP / 2));
      })
      .immediate();
  }

  private checkDimensions(field: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new InvalidInputError(field, `must have ${this.dimensions} dimensions, got ${vector.length}`);
    }
  }
}
