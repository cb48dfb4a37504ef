import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  bundleLocatorContract,
  nextTokensContract,
  parseContract,
  type RESTORE_MODES,
  resultJsonContract,
} from "../../contracts/index.js";
import { canonicalBytes } from "../../core/index.js";
import type { HostWrapKey } from "./host-wrap-key.js";
import { type KeyEnvelope, sealEnvelope } from "./key-envelope.js";
import { netCapability, ratchetKey } from "./key-ratchet.js";
import { BUNDLE_FILE, type PackedState } from "./state-pack.js";

export const RESULT_FILE = "result.json";
export const NEXT_TOKENS_FILE = "next_tokens.json";
export const LOCATOR_FILE = "bundle_locator_next.json";
export const ENVELOPE_DIR = "envelopes";

export interface SealedState {
  /** The key of the next ratchet step; also inside the state_cap_next envelope. */
  nextKey: Buffer;
  nextStep: number;
  stateEnvelope: KeyEnvelope;
  files: { result: string; nextTokens: string; locator: string; envelopes: string[] };
}

export interface SealInput {
  packed: PackedState;
  /** The key `packed` was encrypted under. */
  key: Buffer;
  wrap: HostWrapKey;
  /** The bundle's folder as readers address it (default `artifact://bundles/<state_id>`, the evidence layout). */
  locatorBase?: string;
  restoreMode?: (typeof RESTORE_MODES)[number];
}

/**
 * Writes beside a packed bundle what seed 002 §3 puts there: the next step's keys as envelopes only this host
 * can open, `next_tokens.json` referring to them, `bundle_locator_next.json` and `result.json`. Each file is
 * checked against its contract before it is written, and written as canonical JSON.
 */
export async function sealState(input: SealInput): Promise<SealedState> {
  const { packed, wrap } = input;
  const dir = dirname(packed.file);
  const base = input.locatorBase ?? `artifact://bundles/${packed.stateId}`;
  const at = { stateId: packed.stateId, step: packed.ratchetStep };
  const nextKey = ratchetKey(input.key, at);
  const nextStep = packed.ratchetStep + 1;
  const label = { state_id: packed.stateId, ratchet_step: nextStep };
  const stateEnvelope = sealEnvelope(wrap, nextKey, { purpose: "state_cap_next", ...label });
  const netEnvelope = sealEnvelope(wrap, netCapability(nextKey, at), { purpose: "net_cap_next", ...label });
  await mkdir(join(dir, ENVELOPE_DIR), { recursive: true, mode: 0o700 });
  const envelopes = [stateEnvelope, netEnvelope].map((e) => join(dir, ENVELOPE_DIR, `${e.purpose}.json`));
  const refOf = (purpose: string) => `${base}/${ENVELOPE_DIR}/${purpose}.json`;
  const bundleRef = `${base}/${BUNDLE_FILE}`;

  const nextTokens = parseContract(nextTokensContract, {
    schema_version: "ironclaw-next-tokens-v1",
    state_cap_next: refOf("state_cap_next"),
    net_cap_next: refOf("net_cap_next"),
    ratchet: { current_step: packed.ratchetStep, next_step: nextStep },
    expires_at: null,
  });
  const locator = parseContract(bundleLocatorContract, {
    schema_version: "ironclaw-bundle-locator-v1",
    state_id: packed.stateId,
    bundle_ref: bundleRef,
    file_name: BUNDLE_FILE,
    bundle_sha256: packed.bundleSha256,
    size_bytes: packed.sizeBytes,
    manifest_sha256: packed.manifestSha256,
    ratchet_step: packed.ratchetStep,
  });
  const result = parseContract(resultJsonContract, {
    schema_version: "ironclaw-result-v1",
    run_status: "succeeded",
    restore_mode: input.restoreMode ?? (packed.ratchetStep === 0 ? "fresh" : "bundle"),
    bundle_ref: bundleRef,
    bundle_sha256: packed.bundleSha256,
    artifact_refs: [refOf("state_cap_next"), refOf("net_cap_next")],
  });
  const files = {
    result: join(dir, RESULT_FILE),
    nextTokens: join(dir, NEXT_TOKENS_FILE),
    locator: join(dir, LOCATOR_FILE),
    envelopes,
  };
  await writeFile(envelopes[0] as string, canonicalBytes(stateEnvelope), { mode: 0o600 });
  await writeFile(envelopes[1] as string, canonicalBytes(netEnvelope), { mode: 0o600 });
  await writeFile(files.nextTokens, canonicalBytes(nextTokens), { mode: 0o600 });
  await writeFile(files.locator, canonicalBytes(locator), { mode: 0o600 });
  await writeFile(files.result, canonicalBytes(result), { mode: 0o600 });
  return { nextKey, nextStep, stateEnvelope, files };
}
