/** The p-th percentile (0..100) of samples, by nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Runs `fn` once per input after `warmup` untimed runs and returns the latencies in ms. */
export async function timeEach<T>(
  inputs: readonly T[],
  fn: (input: T) => unknown,
  warmup = 5,
): Promise<number[]> {
  for (const input of inputs.slice(0, warmup)) await fn(input);
  const out: number[] = [];
  for (const input of inputs) {
    const start = performance.now();
    await fn(input);
    out.push(performance.now() - start);
  }
  return out;
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
