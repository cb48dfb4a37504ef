/**
 * The candidate a mistyped name most likely meant, for "did you mean …?": a small edit distance, or a shared
 * start of at least two letters (`--foo` → `--force`, `--js` → `--json`). Undefined when nothing is close, so
 * a wild guess is never offered.
 */
export function findClosestName(typed: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number; prefix: number } | undefined;
  for (const name of candidates) {
    const distance = measureEditDistance(typed.toLowerCase(), name.toLowerCase());
    const prefix = countSharedPrefix(typed.toLowerCase(), name.toLowerCase());
    const close = distance <= Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)) || prefix >= 2;
    if (!close) continue;
    if (!best || distance < best.distance || (distance === best.distance && prefix > best.prefix))
      best = { name, distance, prefix };
  }
  return best?.name;
}

/** Edit distance where swapping two neighbouring letters is one edit (`tial` → `tail`); names are short. */
function measureEditDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.length, b.length);
}

function countSharedPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
