// The int8 codes and the int16 query the kernel multiplies (see vector-kernel.ts).

/**
 * Writes `round(127 · x / max|x|)` for each of the first `dims` values of `vector` into `out` from `offset`, and
 * returns the scale that turns a code back into the value (`max|x| / 127`). One scale per row needs no training
 * and no other rows; the error it leaves is removed by rescoring with the stored floats.
 */
export function quantiseRow(vector: Float32Array, dims: number, out: Int8Array, offset: number): number {
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vector[d] as number));
  const factor = max > 0 ? 127 / max : 0;
  for (let d = 0; d < dims; d++) out[offset + d] = Math.round((vector[d] as number) * factor);
  return max / 127;
}

/**
 * Writes the query as int16 into `out` from index 0, as fine as the accumulator allows: the largest possible
 * sum, 127 · Σ|q|, must stay below 2^31 for the kernel's int32 lanes. Rankings need no scale back.
 */
export function quantiseQuery(query: Float32Array, dims: number, out: Int16Array): void {
  let max = 0;
  let sum = 0;
  for (let d = 0; d < dims; d++) {
    const a = Math.abs(query[d] as number);
    max = Math.max(max, a);
    sum += a;
  }
  const factor = max > 0 ? Math.min(32767 / max, (2 ** 31 - 1) / (127 * sum)) : 0;
  for (let d = 0; d < dims; d++) out[d] = Math.round((query[d] as number) * factor);
}
