import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { InvalidInputError } from "./errors.js";

/**
 * RFC 8785 (JCS) serialisation: object keys sorted by UTF-16 code units, no whitespace, numbers in the
 * ECMAScript shortest round-trip form, strings escaped as JSON.stringify does. NaN, Infinity and lone
 * surrogates have no canonical form and are refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) throw new InvalidInputError("$", "undefined has no JSON form");
  try {
    const text = canonicalize(value);
    if (text === undefined) throw new Error("value has no JSON form");
    return text;
  } catch (cause) {
    throw new InvalidInputError("$", `cannot canonicalise: ${(cause as Error).message}`, { cause });
  }
}

/** The exact UTF-8 bytes that get hashed for a value. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), "utf8");
}

/** Lowercase hex sha256 of bytes or of a string's UTF-8 encoding. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `sha256:<hex>` over the canonical JSON bytes of a value (seed 002 §4). */
export function hashCanonical(value: unknown): string {
  return `sha256:${sha256Hex(canonicalBytes(value))}`;
}
