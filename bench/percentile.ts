/**
 * The p-th percentile (p from 0 to 100) of samples by nearest rank: the smallest sample that at least p % of
 * the samples are less than or equal to. Every benchmark in bench/ uses this one definition, so a p99 here and
 * a p99 there mean the same thing. NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be between 0 and 100, got ${p}`);
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}
