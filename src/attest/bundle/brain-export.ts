import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { InvalidInputError } from "../../core/index.js";
import { KEY_BYTES } from "./bundle-cipher.js";
import { type SealedState, sealState } from "./bundle-outputs.js";
import { loadHostWrapKey } from "./host-wrap-key.js";
import { ratchetKey } from "./key-ratchet.js";
import { readChainHead, writeChainHead } from "./state-chain.js";
import { type PackedState, packState } from "./state-pack.js";
import { type UnpackedState, unpackState } from "./state-unpack.js";

export interface ExportedState {
  packed: PackedState;
  sealed: SealedState;
  /** The key this bundle was sealed with; the later states' keys derive from it, never the earlier ones'. */
  key: Buffer;
  /** The state the previous export of this user left, undefined for the first. */
  parentStateId: string | undefined;
  bundleDir: string;
}

/**
 * Packs a user's brain directory into `<evidenceDir>/bundles/<new state id>/` at the next step of the user's
 * ratchet on this host, writes the seed's three files beside it, and moves the chain's head on.
 */
export async function exportBrainState(input: {
  home: string;
  user: string;
  brainDir: string;
  evidenceDir: string;
}): Promise<ExportedState> {
  const wrap = await loadHostWrapKey(input.home);
  const head = await readChainHead(input.home, input.user, wrap);
  const stateId = randomUUID();
  const bundleDir = join(input.evidenceDir, "bundles", stateId);
  const packed = await packState({
    stateDir: input.brainDir,
    stateId,
    ratchetStep: head.step,
    key: head.key,
    outDir: bundleDir,
  });
  const sealed = await sealState({ packed, key: head.key, wrap });
  await writeChainHead(input.home, input.user, wrap, { stateId, step: head.step, nextKey: sealed.nextKey });
  return { packed, sealed, key: head.key, parentStateId: head.parentStateId, bundleDir };
}

/**
 * Restores a bundle into `targetDir` (missing or empty) and, when the bundle names its state and step, makes it
 * the head of the user's chain on this host, so the next export here goes on from it.
 */
export async function importBrainState(input: {
  home: string;
  user: string;
  bundleDir: string;
  key: Buffer;
  targetDir: string;
}): Promise<UnpackedState> {
  const restored = await unpackState(input.bundleDir, input.key, input.targetDir);
  if (restored.stateId !== undefined && restored.ratchetStep !== undefined) {
    const at = { stateId: restored.stateId, step: restored.ratchetStep };
    const wrap = await loadHostWrapKey(input.home);
    await writeChainHead(input.home, input.user, wrap, { ...at, nextKey: ratchetKey(input.key, at) });
  }
  return restored;
}

/** A state key as a person keeps it: base64url of its 32 bytes. */
export function formatStateKey(key: Buffer): string {
  return key.toString("base64url");
}

export function parseStateKey(text: string, field = "key"): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, "base64url");
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(trimmed) || key.length !== KEY_BYTES)
    throw new InvalidInputError(
      field,
      `must be a state key: ${KEY_BYTES} bytes in base64url, as export wrote it`,
    );
  return key;
}
