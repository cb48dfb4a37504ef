import { normaliseVector } from "../embedders/embedder.js";
import { VectorCodes } from "./vector-codes.js";

/** A deterministic PRNG (mulberry32), so the same corpus always trains the same lists. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How `nearest` searches: flat up to `flatLimit` centroids, else through the `groupProbes` nearest groups. */
export interface CentroidSearch {
  flatLimit: number;
  groupProbes: number;
}

export const DEFAULT_CENTROID_SEARCH: CentroidSearch = { flatLimit: 1024, groupProbes: 8 };

/**
 * How training files its sample: through fewer groups than a vector is finally filed by. A sample row filed
 * into a neighbour of its nearest centroid still pulls that centroid towards its region, and training files
 * every sample row once per iteration, so this is most of what retraining costs.
 */
const TRAINING_SEARCH: CentroidSearch = { ...DEFAULT_CENTROID_SEARCH, groupProbes: 2 };

/**
 * Centroids as a code table, so finding the nearest of thousands costs a kernel scan rather than a JavaScript
 * loop over every float. Past `flatLimit` centroids they are filed in groups (k-means over the centroids
 * themselves), and `nearest` scores only the centroids of the `groupProbes` groups nearest the vector: filing a
 * vector costs about (1 + groupProbes)·√k rows instead of k, which keeps retraining a million vectors into ten
 * thousand lists affordable. A vector near a border may land in a neighbouring list; at 100k vectors and 1000
 * lists, 8 groups lost 0.01 of recall@10 where 2 groups lost 0.08, against filing by every centroid.
 */
export class CentroidTable {
  readonly count: number;
  private readonly all: VectorCodes;
  private readonly groupTable: VectorCodes | undefined;

  constructor(
    readonly centroids: Float32Array,
    readonly dimensions: number,
    private readonly search: CentroidSearch = DEFAULT_CENTROID_SEARCH,
  ) {
    this.count = centroids.length / dimensions;
    const rowOf = (c: number) => centroids.subarray(c * dimensions, (c + 1) * dimensions);
    this.all = new VectorCodes(dimensions);
    if (this.count <= search.flatLimit) {
      for (let c = 0; c < this.count; c++) this.all.put(c, 0, rowOf(c));
      return;
    }
    const groups = trainCentroids(centroids, dimensions, Math.ceil(Math.sqrt(this.count)), { iterations: 6 });
    const groupTable = buildCodeTable(groups, dimensions);
    this.all.reset(groups.length / dimensions);
    for (let c = 0; c < this.count; c++) this.all.put(c, groupTable.best(rowOf(c)) ?? 0, rowOf(c));
    this.all.compact();
    this.groupTable = groupTable;
  }

  /** The centroid with the largest dot product with `vector` (approximately, past `flatLimit`). */
  nearest(vector: Float32Array): number {
    const groups = this.groupTable?.shortlist(vector, this.search.groupProbes).rowids;
    return this.all.best(vector, groups) ?? 0;
  }

  /** At least the `count` centroids nearest to `vector` (all when omitted), nearest first. */
  rank(vector: Float32Array, count = this.count): number[] {
    return this.all.rank(vector, count);
  }
}

function buildCodeTable(rows: Float32Array, dims: number): VectorCodes {
  const table = new VectorCodes(dims);
  for (let c = 0; c < rows.length / dims; c++) table.put(c, 0, rows.subarray(c * dims, (c + 1) * dims));
  return table;
}

/**
 * Spherical k-means (cosine) over the unit vectors stored row-major in `sample`: `k` unit centroids, row-major.
 * Centroids only need to spread the vectors into lists of similar size, not be optimal: on the benchmark corpus,
 * 16 sample rows per list and 4–5 iterations find the exact top 10 as often as 48 rows and 8 iterations.
 */
export function trainCentroids(
  sample: Float32Array,
  dims: number,
  k: number,
  options: { iterations?: number; seed?: number } = {},
): Float32Array {
  const rows = sample.length / dims;
  const random = seededRandom(options.seed ?? 42);
  const centroids = new Float32Array(k * dims);
  // Seeds spread evenly over a shuffleIndexes sample: any k distinct rows would do.
  const order = shuffleIndexes(rows, random);
  for (let c = 0; c < k; c++) {
    const row = order[Math.floor((c * rows) / k)] as number;
    centroids.set(sample.subarray(row * dims, (row + 1) * dims), c * dims);
  }
  const sums = new Float64Array(k * dims);
  const sizes = new Uint32Array(k);
  for (let iter = 0; iter < (options.iterations ?? 5); iter++) {
    const table = new CentroidTable(centroids, dims, TRAINING_SEARCH);
    sums.fill(0);
    sizes.fill(0);
    for (let row = 0; row < rows; row++) {
      const vector = sample.subarray(row * dims, (row + 1) * dims);
      const c = table.nearest(vector);
      sizes[c] = (sizes[c] as number) + 1;
      for (let d = 0; d < dims; d++)
        sums[c * dims + d] = (sums[c * dims + d] as number) + (vector[d] as number);
    }
    for (let c = 0; c < k; c++) {
      const centroid = centroids.subarray(c * dims, (c + 1) * dims);
      if (sizes[c] === 0) {
        // An empty list takes a random sample row, so every list ends up used.
        const row = Math.floor(random() * rows);
        centroid.set(sample.subarray(row * dims, (row + 1) * dims));
        continue;
      }
      for (let d = 0; d < dims; d++) centroid[d] = sums[c * dims + d] as number;
      normaliseVector(centroid);
    }
  }
  return centroids;
}

/** `0 … n−1` in a random order (Fisher–Yates). */
function shuffleIndexes(n: number, random: () => number): number[] {
  const index = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [index[i], index[j]] = [index[j] as number, index[i] as number];
  }
  return index;
}
