import { normaliseVector } from "./embedders/embedder.js";

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

/**
 * Spherical k-means (cosine) over unit vectors stored row-major in `data`, trained on a random sample of at most
 * `sampleSize` rows: centroids only need to spread the vectors into lists, not be optimal. Returns `k` unit
 * centroids, row-major.
 */
export function trainCentroids(
  data: Float32Array,
  dims: number,
  k: number,
  options: { iterations?: number; sampleSize?: number; seed?: number } = {},
): Float32Array {
  const rows = data.length / dims;
  const random = seededRandom(options.seed ?? 42);
  const sampleSize = Math.min(rows, options.sampleSize ?? k * 32);
  const sample = sampleRows(rows, sampleSize, random);
  const centroids = new Float32Array(k * dims);
  for (let c = 0; c < k; c++) {
    const row = sample[Math.floor((c * sample.length) / k)] as number;
    centroids.set(data.subarray(row * dims, (row + 1) * dims), c * dims);
  }
  const sums = new Float64Array(k * dims);
  const sizes = new Uint32Array(k);
  for (let iter = 0; iter < (options.iterations ?? 6); iter++) {
    sums.fill(0);
    sizes.fill(0);
    for (const row of sample) {
      const c = nearestCentroid(centroids, dims, data, row * dims);
      sizes[c] = (sizes[c] as number) + 1;
      for (let d = 0; d < dims; d++)
        sums[c * dims + d] = (sums[c * dims + d] as number) + (data[row * dims + d] as number);
    }
    for (let c = 0; c < k; c++) {
      const centroid = centroids.subarray(c * dims, (c + 1) * dims);
      if (sizes[c] === 0) {
        // An empty list takes a random sample row, so every list ends up used.
        const row = sample[Math.floor(random() * sample.length)] as number;
        centroid.set(data.subarray(row * dims, (row + 1) * dims));
        continue;
      }
      for (let d = 0; d < dims; d++) centroid[d] = sums[c * dims + d] as number;
      normaliseVector(centroid);
    }
  }
  return centroids;
}

/** The centroid with the largest dot product with the vector at `offset` in `data`. */
export function nearestCentroid(
  centroids: Float32Array,
  dims: number,
  data: Float32Array,
  offset = 0,
): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  const k = centroids.length / dims;
  for (let c = 0; c < k; c++) {
    let score = 0;
    const base = c * dims;
    for (let d = 0; d < dims; d++) score += (centroids[base + d] as number) * (data[offset + d] as number);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

/** The `count` centroids nearest to a vector, nearest first. */
export function nearestCentroids(
  centroids: Float32Array,
  dims: number,
  vector: Float32Array,
  count: number,
): number[] {
  const k = centroids.length / dims;
  const scores: Array<[number, number]> = [];
  for (let c = 0; c < k; c++) {
    let score = 0;
    for (let d = 0; d < dims; d++) score += (centroids[c * dims + d] as number) * (vector[d] as number);
    scores.push([c, score]);
  }
  scores.sort((a, b) => b[1] - a[1]);
  return scores.slice(0, count).map(([c]) => c);
}

function sampleRows(rows: number, size: number, random: () => number): number[] {
  if (size >= rows) return Array.from({ length: rows }, (_, i) => i);
  // Partial Fisher–Yates: the first `size` entries of a shuffled index list.
  const index = Array.from({ length: rows }, (_, i) => i);
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (rows - i));
    [index[i], index[j]] = [index[j] as number, index[i] as number];
  }
  return index.slice(0, size);
}
