import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalBytes, InvalidInputError } from "../../core/index.js";
import { KEY_BYTES } from "./bundle-cipher.js";
import type { HostWrapKey } from "./host-wrap-key.js";
import { type KeyEnvelope, openEnvelope, sealEnvelope } from "./key-envelope.js";

/**
 * Where a user's ratchet stands on this host: IRONCLAW_HOME/attest/chains/<user>.json names the last state
 * packed and carries the next step's key as an envelope under the host's wrap key, so the next export goes on
 * from it instead of starting a new chain.
 */
export interface ChainHead {
  /** The key for the next state, its step, and the state it follows (undefined for a new chain). */
  key: Buffer;
  step: number;
  parentStateId: string | undefined;
}

const USER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function chainFile(home: string, user: string): string {
  if (!USER.test(user))
    throw new InvalidInputError(
      "user",
      "must be 1-64 letters, digits, - or _, starting with a letter or digit",
    );
  return join(home, "attest", "chains", `${user}.json`);
}

/** The head of the user's chain, or a fresh random key at step 0 when the user has none yet. */
export async function readChainHead(home: string, user: string, wrap: HostWrapKey): Promise<ChainHead> {
  const text = await readFile(chainFile(home, user), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (text === undefined) return { key: randomBytes(KEY_BYTES), step: 0, parentStateId: undefined };
  const { key, envelope } = openEnvelope(
    wrap,
    (JSON.parse(text) as { next_state_cap?: unknown }).next_state_cap,
  );
  return { key, step: envelope.ratchet_step, parentStateId: envelope.state_id };
}

/** Records that `stateId` at `step` is the user's latest state, with the key of the step after it. */
export async function writeChainHead(
  home: string,
  user: string,
  wrap: HostWrapKey,
  head: { stateId: string; step: number; nextKey: Buffer },
): Promise<KeyEnvelope> {
  const file = chainFile(home, user);
  const envelope = sealEnvelope(wrap, head.nextKey, {
    purpose: "state_cap_next",
    state_id: head.stateId,
    ratchet_step: head.step + 1,
  });
  await mkdir(join(home, "attest", "chains"), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(
    tmp,
    canonicalBytes({ user, state_id: head.stateId, ratchet_step: head.step, next_state_cap: envelope }),
    {
      mode: 0o600,
      flag: "wx",
    },
  );
  await rename(tmp, file);
  return envelope;
}
