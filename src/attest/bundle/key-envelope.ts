import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import { canonicalBytes, InvalidInputError, IronclawError } from "../../core/index.js";
import { KEY_BYTES } from "./bundle-cipher.js";
import type { HostWrapKey } from "./host-wrap-key.js";

export const ENVELOPE_PURPOSES = ["state_cap_next", "net_cap_next"] as const;

/**
 * A capability envelope: one key wrapped (AES-256-GCM) under the host's wrap key. Everything but the
 * ciphertext is the additional data, so an envelope moved to another purpose, state or step fails to open.
 */
export const keyEnvelopeSchema = z.strictObject({
  type: z.literal("ironclaw-key-envelope-v1"),
  purpose: z.enum(ENVELOPE_PURPOSES),
  /** The state after which the wrapped key is used. */
  state_id: z.string().min(1),
  /** The ratchet step the wrapped key belongs to. */
  ratchet_step: z.int().min(0),
  wrap_key_id: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  alg: z.literal("AES-256-GCM"),
  iv: z.base64(),
  ciphertext: z.base64(),
  tag: z.base64(),
});

export type KeyEnvelope = z.output<typeof keyEnvelopeSchema>;
type EnvelopeLabel = Pick<KeyEnvelope, "purpose" | "state_id" | "ratchet_step">;

export function sealEnvelope(wrap: HostWrapKey, key: Buffer, label: EnvelopeLabel): KeyEnvelope {
  const meta = {
    type: "ironclaw-key-envelope-v1",
    ...label,
    wrap_key_id: wrap.id,
    alg: "AES-256-GCM",
  } as const;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", wrap.key, iv);
  cipher.setAAD(canonicalBytes(meta));
  const ciphertext = Buffer.concat([cipher.update(key), cipher.final()]);
  return {
    ...meta,
    iv: iv.toString("base64"),
    ciphertext: ciphertext.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
  };
}

/** The wrapped key, after checking the envelope's form, its wrap key and its authentication. */
export function openEnvelope(wrap: HostWrapKey, value: unknown): { key: Buffer; envelope: KeyEnvelope } {
  const parsed = keyEnvelopeSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`envelope.${issue?.path.join(".") ?? ""}`, issue?.message ?? "is invalid");
  }
  const envelope = parsed.data;
  if (envelope.wrap_key_id !== wrap.id)
    throw new IronclawError(
      "envelope_foreign",
      `the ${envelope.purpose} envelope is wrapped under ${envelope.wrap_key_id}, not this host's key ${wrap.id}`,
    );
  const { iv, ciphertext, tag, ...meta } = envelope;
  const decipher = createDecipheriv("aes-256-gcm", wrap.key, Buffer.from(iv, "base64"));
  decipher.setAAD(canonicalBytes(meta));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  try {
    const key = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]);
    if (key.length !== KEY_BYTES) throw new Error(`unwrapped ${key.length} bytes`);
    return { key, envelope };
  } catch (cause) {
    throw new IronclawError(
      "envelope_auth_failed",
      `the ${envelope.purpose} envelope failed authentication: it was altered after it was sealed`,
      { cause },
    );
  }
}
