// Selection over a scan's scores: the few best of many, without sorting them all.

/** Indexes of the `count` largest scores, largest first: one pass, a sorted top list, a threshold to skip. */
export function selectBest(scores: Float32Array, count: number): number[] {
  if (count <= 0) return [];
  const top: number[] = [];
  const topScores: number[] = [];
  let threshold = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i] as number;
    if (top.length === count && score <= threshold) continue;
    let at = topScores.length;
    while (at > 0 && (topScores[at - 1] as number) < score) at--;
    top.splice(at, 0, i);
    topScores.splice(at, 0, score);
    if (top.length > count) {
      top.pop();
      topScores.pop();
    }
    if (top.length === count) threshold = topScores[count - 1] as number;
  }
  return top;
}

/** The value that would sit at index `n` if `values` were sorted ascending (Hoare's quickselect; reorders). */
export function selectNth(values: Float32Array, n: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1] as number;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const swap = values[i] as number;
        values[i++] = values[j] as number;
        values[j--] = swap;
      }
    }
    if (n <= j) high = j;
    else if (n >= i) low = i;
    else break;
  }
  return values[n] as number;
}
