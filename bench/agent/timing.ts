import { percentile } from "../percentile.js";

/**
 * Runs every function once per round, `rounds` times, after a tenth as many untimed warm-up rounds; returns the
 * latencies in ms per function.
 */
export async function timeRounds(rounds: number, fns: Array<() => Promise<unknown>>): Promise<number[][]> {
  for (let r = 0; r < Math.max(5, Math.floor(rounds / 10)); r++) for (const fn of fns) await fn();
  const out = fns.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (const [i, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      out[i]?.push(performance.now() - start);
    }
  }
  return out;
}

export function summarise(samples: readonly number[]): {
  mean: number;
  p50: number;
  p95: number;
  p99: number;
} {
  const mean = samples.reduce((a, b) => a + b, 0) / (samples.length || 1);
  return { mean, p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99) };
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
