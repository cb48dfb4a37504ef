import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { InvalidInputError, IronclawError } from "../../core/index.js";

/**
 * `state_bundle.tar.enc`: `IRCB` · version byte · 12-byte IV · AES-256-GCM ciphertext · 16-byte tag. The header
 * (magic, version, IV) is the GCM additional data, so a changed version or IV fails authentication like a
 * changed ciphertext does.
 */
const MAGIC = Buffer.from("IRCB", "ascii");
export const BUNDLE_FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 1 + IV_BYTES;
export const KEY_BYTES = 32;

/** The bundle could not be authenticated: a wrong key, or bytes changed after they were written. */
export class BundleAuthError extends IronclawError {
  override readonly name = "BundleAuthError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("bundle_auth_failed", message, options);
  }
}

export function encryptBundle(plain: Buffer, key: Buffer): Buffer {
  checkKey(key);
  const header = Buffer.concat([MAGIC, Buffer.from([BUNDLE_FORMAT_VERSION]), randomBytes(IV_BYTES)]);
  const cipher = createCipheriv("aes-256-gcm", key, header.subarray(MAGIC.length + 1));
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, body, cipher.getAuthTag()]);
}

export function decryptBundle(sealed: Buffer, key: Buffer): Buffer {
  checkKey(key);
  if (sealed.length < HEADER_BYTES + TAG_BYTES || !sealed.subarray(0, MAGIC.length).equals(MAGIC))
    throw new InvalidInputError("state_bundle.tar.enc", "is not an IronClaw state bundle (no IRCB header)");
  const version = sealed[MAGIC.length];
  if (version !== BUNDLE_FORMAT_VERSION)
    throw new InvalidInputError(
      "state_bundle.tar.enc",
      `has format version ${version}; this IronClaw reads version ${BUNDLE_FORMAT_VERSION}`,
    );
  const header = sealed.subarray(0, HEADER_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, header.subarray(MAGIC.length + 1));
  decipher.setAAD(header);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const body = decipher.update(sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([body, decipher.final()]);
  } catch (cause) {
    throw new BundleAuthError(
      "state_bundle.tar.enc failed AES-256-GCM authentication: the key is not this bundle's key, or the bundle was altered",
      { cause },
    );
  }
}

export function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new InvalidInputError("key", `must be ${KEY_BYTES} bytes (AES-256), got ${key.length}`);
}
