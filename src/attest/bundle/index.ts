export {
  type ExportedState,
  exportBrainState,
  formatStateKey,
  importBrainState,
  parseStateKey,
} from "./brain-export.js";
export {
  BUNDLE_FORMAT_VERSION,
  BundleAuthError,
  decryptBundle,
  encryptBundle,
  KEY_BYTES,
} from "./bundle-cipher.js";
export { type BundleManifest, bundleManifestSchema } from "./bundle-manifest.js";
export {
  ENVELOPE_DIR,
  LOCATOR_FILE,
  NEXT_TOKENS_FILE,
  RESULT_FILE,
  type SealedState,
  type SealInput,
  sealState,
} from "./bundle-outputs.js";
export { type HostWrapKey, loadHostWrapKey, WRAP_KEY_FILE } from "./host-wrap-key.js";
export {
  ENVELOPE_PURPOSES,
  type KeyEnvelope,
  keyEnvelopeSchema,
  openEnvelope,
  sealEnvelope,
} from "./key-envelope.js";
export { netCapability, type RatchetPosition, ratchetKey } from "./key-ratchet.js";
export { type ChainHead, readChainHead, writeChainHead } from "./state-chain.js";
export { BUNDLE_FILE, type PackedState, type PackInput, packState } from "./state-pack.js";
export { MAX_STATE_BYTES, type SkippedEntry } from "./state-tree.js";
export { BundleHashError, type UnpackedState, unpackState } from "./state-unpack.js";
export { readTar, type TarEntry, writeTar } from "./ustar.js";
