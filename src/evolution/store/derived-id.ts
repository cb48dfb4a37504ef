import { createHash } from "node:crypto";

/**
 * A UUID (version 5 layout, variant 10) made from the sha256 of the given parts, so an id the store generates is
 * the same every time for the same input: re-projecting an envelope, or receiving a retried payload, gives the
 * ids it gave before. Parts are joined with NUL, which no JSON text or id holds unescaped.
 */
export function derivedUuid(...parts: string[]): string {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest();
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
