// Embedding vectors are produced by providers (remote endpoints) and by memory (the built-in embedder) and
// compared in memory; both sides need the same unit-length rule, and neither floor may import the other.

/** Scales a vector to unit length in place; a zero vector stays zero. */
export function normaliseVector(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

/** Dot product, which is the cosine for unit-length vectors. */
export function dotProduct(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
