/** The bytes of a float32 vector as SQLite stores them (sqlite-vec reads little-endian float32 blobs). */
export function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A float32 vector from a blob; copied, because a Buffer from SQLite need not be 4-byte aligned. */
export function vectorFromBlob(blob: Buffer): Float32Array {
  const copy = new Float32Array(blob.byteLength / 4);
  new Uint8Array(copy.buffer).set(blob);
  return copy;
}
