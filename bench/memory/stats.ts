import { loadavg } from "node:os";
import { percentile } from "../percentile.js";

/** Runs `fn` once per input after `warmup` untimed runs and returns the latencies in ms. */
export async function timeEach<T>(
  inputs: readonly T[],
  fn: (input: T) => unknown,
  warmup = 5,
): Promise<number[]> {
  return (await timeAndKeep(inputs, fn, warmup)).times;
}

/**
 * Like `timeEach`, and keeps each input's result too, so a slow leg is not run twice to be judged. Also records
 * the process's CPU time per input: on a shared machine wall time includes waiting for a core, CPU time does not.
 */
export async function timeAndKeep<T, R>(
  inputs: readonly T[],
  fn: (input: T) => R | Promise<R>,
  warmup = 5,
): Promise<{ times: number[]; cpuTimes: number[]; results: R[] }> {
  for (const input of inputs.slice(0, warmup)) await fn(input);
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const results: R[] = [];
  for (const input of inputs) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    results.push(await fn(input));
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  return { times, cpuTimes, results };
}

export const ms = (n: number) => Math.round(n * 100) / 100;

export interface Latency {
  p50: number;
  p99: number;
  /** CPU time of the same calls, when measured. */
  cpu?: { p50: number; p99: number };
}

export function summariseLatency(times: readonly number[], cpuTimes?: readonly number[]): Latency {
  const wall = { p50: ms(percentile(times, 50)), p99: ms(percentile(times, 99)) };
  return cpuTimes
    ? { ...wall, cpu: { p50: ms(percentile(cpuTimes, 50)), p99: ms(percentile(cpuTimes, 99)) } }
    : wall;
}

/** Share of each reference top list that the candidate list also holds, averaged. */
export function measureRecall<T>(candidates: readonly T[][], references: readonly T[][]): number {
  let sum = 0;
  references.forEach((reference, i) => {
    const found = new Set(candidates[i] ?? []);
    sum += reference.filter((x) => found.has(x)).length / Math.max(1, reference.length);
  });
  return ms(sum / Math.max(1, references.length));
}

/** The 1, 5 and 15 minute load averages: a shared machine's timings mean little without them. */
export function readLoadAverage(): number[] {
  return loadavg().map(ms);
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
