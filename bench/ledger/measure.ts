/** Wall-clock milliseconds of an async piece of work. */
export async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export function perSecond(count: number, millis: number): number {
  return (count / millis) * 1000;
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Epoch milliseconds with sub-millisecond precision, comparable between processes on one machine. */
export const epochMs = () => performance.timeOrigin + performance.now();
