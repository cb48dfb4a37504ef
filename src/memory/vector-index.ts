import type Database from "better-sqlite3";
import { nearestCentroid, nearestCentroids, trainCentroids } from "./kmeans.js";
import { statement } from "./statements.js";
import { vectorBlob, vectorFromBlob } from "./vector-blob.js";

export interface VectorHit {
  rowid: number;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

export interface VectorIndexTuning {
  /** Below this many vectors every search scans them all (exact); from here on an inverted file is used. */
  minVectorsForLists: number;
  /** Vectors per list when training: about one vec0 chunk (1024 slots), which vec0 scans at a fixed cost. */
  vectorsPerList: number;
  /** Share of the lists probed by a search (at least `minProbes`); more is slower and closer to exact. */
  probeShare: number;
  minProbes: number;
}

export const DEFAULT_VECTOR_TUNING: VectorIndexTuning = {
  minVectorsForLists: 20_000,
  vectorsPerList: 1000,
  probeShare: 0.08,
  minProbes: 4,
};

const TABLE = "chunk_vectors";

/**
 * Semantic leg storage: a sqlite-vec `vec0` table of unit vectors, compared by L2 distance (which ranks unit
 * vectors exactly as cosine does and is the cheaper one for vec0). sqlite-vec 0.1 only scans, and a full scan of
 * 100k × 128 floats costs ~15 ms, so a large index becomes an inverted file: k-means centroids split the vectors
 * into lists of about a thousand (a vec0 partition key), and a search scans only the lists whose centroids are
 * nearest the query. Below `minVectorsForLists` there is one list and search is exact. vec0 pays a fixed cost
 * per list scanned, so a few large lists beat many small ones.
 */
export class VectorIndex {
  private centroids: Float32Array | undefined;
  private centroidVersion = "";

  constructor(
    private readonly db: Database.Database,
    readonly dimensions: number,
    private readonly tuning: VectorIndexTuning = DEFAULT_VECTOR_TUNING,
  ) {}

  /** Creates the vec0 table for a dimension; the caller has already dropped any table of another one. */
  static create(db: Database.Database, dimensions: number): void {
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${TABLE} USING vec0(` +
        `list INTEGER PARTITION KEY, embedding float[${dimensions}])`,
    );
  }

  static drop(db: Database.Database): void {
    db.exec(
      `DROP TABLE IF EXISTS ${TABLE}; DELETE FROM vector_lists; DELETE FROM meta WHERE key LIKE 'vector_lists_%';`,
    );
  }

  insert(rowid: number, vector: Float32Array): void {
    const centroids = this.loadCentroids();
    const list = centroids ? nearestCentroid(centroids, this.dimensions, vector) : 0;
    statement<[bigint, bigint, Buffer]>(
      this.db,
      `INSERT INTO ${TABLE}(rowid, list, embedding) VALUES (?, ?, ?)`,
    ).run(BigInt(rowid), BigInt(list), vectorBlob(vector));
  }

  delete(rowid: number): void {
    statement<[bigint]>(this.db, `DELETE FROM ${TABLE} WHERE rowid = ?`).run(BigInt(rowid));
  }

  /** The `k` nearest vectors (exact below the list threshold, approximate above it), most similar first. */
  search(query: Float32Array, k: number): VectorHit[] {
    const centroids = this.loadCentroids();
    const blob = vectorBlob(query);
    let rows: VectorRow[];
    if (!centroids) {
      rows = this.scanAll(blob, k);
    } else {
      const lists = centroids.length / this.dimensions;
      const probes = Math.min(
        lists,
        Math.max(this.tuning.minProbes, Math.ceil(lists * this.tuning.probeShare)),
      );
      const chosen = nearestCentroids(centroids, this.dimensions, query, probes);
      // With a partition constraint vec0 returns up to k rows per list; the merge below keeps the best k.
      rows = statement<[Buffer, number, string], VectorRow>(
        this.db,
        `SELECT rowid, distance FROM ${TABLE} WHERE embedding MATCH ? AND k = ? ` +
          "AND list IN (SELECT value FROM json_each(?))",
      ).all(blob, k, JSON.stringify(chosen));
      rows.sort((a, b) => a.distance - b.distance);
    }
    return rows.slice(0, k).map(toHit);
  }

  /**
   * The exact `k` nearest vectors: vec0 scans every list, whatever the index's size. The baseline that the
   * approximate search is measured against (its recall and its speed); a search never needs it.
   */
  searchExact(query: Float32Array, k: number): VectorHit[] {
    return this.scanAll(vectorBlob(query), k).map(toHit);
  }

  listCount(): number {
    const centroids = this.loadCentroids();
    return centroids ? centroids.length / this.dimensions : 1;
  }

  /**
   * Retrains the lists when the index has grown past the threshold or doubled (or shrunk to a quarter) since the
   * last training; returns whether it did. Runs in one transaction: a reader sees the old lists or the new ones.
   */
  rebalance(vectorCount: number): boolean {
    const trainedOn = Number(this.meta("vector_lists_trained_on") ?? 0);
    const hasLists = this.loadCentroids() !== undefined;
    const wantLists = vectorCount >= this.tuning.minVectorsForLists;
    const stale = hasLists && (vectorCount > trainedOn * 2 || vectorCount < trainedOn / 4);
    if (wantLists === hasLists && !stale) return false;
    this.rebuild(wantLists ? Math.max(16, Math.round(vectorCount / this.tuning.vectorsPerList)) : 0);
    return true;
  }

  /** Rewrites every vector into `lists` k-means lists (0: one list, exact search). */
  rebuild(lists: number): void {
    const dims = this.dimensions;
    // Training on a snapshot outside the write lock is fine: centroids only need to be representative. The
    // rewrite re-reads the rows inside the transaction so a vector written meanwhile is not lost.
    const snapshot = this.readAll();
    const count = Math.min(lists, snapshot.rowids.length);
    const centroids = count > 0 ? trainCentroids(snapshot.data, dims, count) : undefined;
    this.db
      .transaction(() => {
        const { rowids, data, blobs } = this.readAll();
        this.db.exec(`DROP TABLE ${TABLE}; DELETE FROM vector_lists;`);
        VectorIndex.create(this.db, dims);
        const insertList = statement<[number, Buffer]>(
          this.db,
          "INSERT INTO vector_lists(list, centroid) VALUES (?, ?)",
        );
        for (let c = 0; centroids && c < centroids.length / dims; c++) {
          insertList.run(c, vectorBlob(centroids.subarray(c * dims, (c + 1) * dims)));
        }
        const insert = statement<[bigint, bigint, Buffer]>(
          this.db,
          `INSERT INTO ${TABLE}(rowid, list, embedding) VALUES (?, ?, ?)`,
        );
        rowids.forEach((rowid, i) => {
          const list = centroids ? nearestCentroid(centroids, dims, data, i * dims) : 0;
          insert.run(BigInt(rowid), BigInt(list), blobs[i] as Buffer);
        });
        this.setMeta("vector_lists_trained_on", String(rowids.length));
        this.setMeta("vector_lists_version", String(Number(this.meta("vector_lists_version") ?? 0) + 1));
      })
      .immediate();
    this.centroidVersion = "";
  }

  /** vec0's full scan: every list, exact distances. */
  private scanAll(blob: Buffer, k: number): VectorRow[] {
    return statement<[Buffer, number], VectorRow>(
      this.db,
      `SELECT rowid, distance FROM ${TABLE} WHERE embedding MATCH ? AND k = ?`,
    ).all(blob, k);
  }

  private readAll(): { rowids: number[]; data: Float32Array; blobs: Buffer[] } {
    const rows = statement<[], { rowid: number; embedding: Buffer }>(
      this.db,
      `SELECT rowid, embedding FROM ${TABLE}`,
    ).all();
    const data = new Float32Array(rows.length * this.dimensions);
    rows.forEach((r, i) => {
      data.set(vectorFromBlob(r.embedding), i * this.dimensions);
    });
    return { rowids: rows.map((r) => Number(r.rowid)), data, blobs: rows.map((r) => r.embedding) };
  }

  /** Centroids, reloaded whenever another connection retrained the lists (the version in meta changed). */
  private loadCentroids(): Float32Array | undefined {
    const version = this.meta("vector_lists_version") ?? "0";
    if (version !== this.centroidVersion) {
      const rows = statement<[], { centroid: Buffer }>(
        this.db,
        "SELECT centroid FROM vector_lists ORDER BY list",
      ).all();
      const centroids = new Float32Array(rows.length * this.dimensions);
      rows.forEach((r, i) => {
        centroids.set(vectorFromBlob(r.centroid), i * this.dimensions);
      });
      this.centroids = rows.length > 0 ? centroids : undefined;
      this.centroidVersion = version;
    }
    return this.centroids;
  }

  private meta(key: string): string | undefined {
    return statement<[string], { value: string }>(this.db, "SELECT value FROM meta WHERE key = ?").get(key)
      ?.value;
  }

  private setMeta(key: string, value: string): void {
    statement<[string, string]>(
      this.db,
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  }
}

interface VectorRow {
  rowid: number;
  distance: number;
}

/** Vectors are unit length, so the L2 distance vec0 computes fastest gives the cosine: 1 − d²/2. */
function toHit(row: VectorRow): VectorHit {
  return { rowid: Number(row.rowid), similarity: 1 - (row.distance * row.distance) / 2 };
}
