import type Database from "better-sqlite3";
import { statement } from "../statements.js";
import { CentroidTable } from "./kmeans.js";
import { vectorBlob, vectorFromBlob } from "./vector-blob.js";

/** Changes whenever the lists are retrained or the vector tables recreated: every connection then reloads. */
export const LISTS_VERSION = "vector_lists_version";
/** How many vectors the current lists were trained on (a doubling retrains). */
export const LISTS_TRAINED_ON = "vector_lists_trained_on";
/** The log was trimmed through this entry: a connection behind it cannot replay and reloads. */
export const LOG_FLOOR = "vector_lists_log_floor";

export function readMeta(db: Database.Database, key: string): string | undefined {
  return statement<[string], { value: string }>(db, "SELECT value FROM meta WHERE key = ?").get(key)?.value;
}

export function writeMeta(db: Database.Database, key: string, value: string): void {
  statement<[string, string]>(
    db,
    "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(key, value);
}

/**
 * The k-means centroids in `vector_lists`, read once per `vector_lists_version`: inserts file each vector by
 * them and searches rank lists by them, so they must follow a retraining by any connection.
 */
export class ListCentroids {
  private table: CentroidTable | undefined;
  private version: string | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly dimensions: number,
  ) {}

  /** The current centroids and the version they belong to (undefined while the index has a single list). */
  current(): { version: string; table: CentroidTable | undefined } {
    const version = readMeta(this.db, LISTS_VERSION) ?? "";
    if (version !== this.version) {
      const dims = this.dimensions;
      const rows = statement<[], { centroid: Buffer }>(
        this.db,
        "SELECT centroid FROM vector_lists ORDER BY list",
      ).all();
      const flat = new Float32Array(rows.length * dims);
      rows.forEach((r, i) => {
        flat.set(vectorFromBlob(r.centroid), i * dims);
      });
      this.table = rows.length > 0 ? new CentroidTable(flat, dims) : undefined;
      this.version = version;
    }
    return { version, table: this.table };
  }

  /** Replaces the centroids (inside the caller's transaction); the caller bumps the version. */
  static write(db: Database.Database, centroids: Float32Array | undefined, dims: number): void {
    db.exec("DELETE FROM vector_lists");
    if (!centroids) return;
    const insert = statement<[number, Buffer]>(db, "INSERT INTO vector_lists(list, centroid) VALUES (?, ?)");
    for (let c = 0; c < centroids.length / dims; c++)
      insert.run(c, vectorBlob(centroids.subarray(c * dims, (c + 1) * dims)));
  }
}
