import { hkdfSync } from "node:crypto";
import { InvalidInputError } from "../../core/index.js";
import { checkKey, KEY_BYTES } from "./bundle-cipher.js";

/**
 * A state's bundle is encrypted under the key of its ratchet step; the next step's key is derived from it and
 * never the other way round, so handing out one step's key opens that step and the ones after it, never the
 * states before. The state id is in the derivation, so two chains that share a key part ways at once.
 */
export interface RatchetPosition {
  /** The state whose key is `key`. */
  stateId: string;
  /** The ratchet step of that state. */
  step: number;
}

/** The key of step `step + 1`: HKDF-SHA256 of this step's key, with the state id and the next step as info. */
export function ratchetKey(key: Buffer, at: RatchetPosition): Buffer {
  return derive(key, "ironclaw-state-ratchet-v1", at, at.step + 1);
}

/**
 * The network capability that goes with the next step's state key (next_tokens.json's `net_cap_next`):
 * derived from that key with its own label, so neither reveals the other.
 */
export function netCapability(nextKey: Buffer, at: RatchetPosition): Buffer {
  return derive(nextKey, "ironclaw-net-cap-v1", at, at.step + 1);
}

function derive(key: Buffer, label: string, at: RatchetPosition, step: number): Buffer {
  checkKey(key);
  if (!Number.isInteger(at.step) || at.step < 0)
    throw new InvalidInputError("ratchet_step", "must be a non-negative integer");
  if (at.stateId === "") throw new InvalidInputError("state_id", "must not be empty");
  const info = Buffer.from(`${label}\0${at.stateId}\0${step}`, "utf8");
  return Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), info, KEY_BYTES));
}
