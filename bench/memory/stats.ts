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
