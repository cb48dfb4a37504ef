import { createPublicKey, type KeyObject } from "node:crypto";
import { InvalidInputError, sha256Hex } from "../../core/index.js";

/** `sha256:<hex>` of the key's SPKI DER: names the key in a proof without carrying it. */
export function keyIdOf(publicKey: KeyObject): string {
  return `sha256:${sha256Hex(publicKey.export({ type: "spki", format: "der" }))}`;
}

/** An Ed25519 public key from SPKI PEM (an evidence folder's `public-key.pem`); anything else is refused. */
export function parsePublicKeyPem(pem: string, file = "public-key.pem"): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: "pem" });
  } catch (cause) {
    throw new InvalidInputError(file, `is not a PEM public key: ${(cause as Error).message}`, { cause });
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new InvalidInputError(file, `is a ${key.asymmetricKeyType} key; IronClaw signs with Ed25519`);
  return key;
}
