export { checkSoulGuardConfig, DEFAULT_SUSPICIOUS_PATTERNS, type DiffLine, diffLines } from "./soul-guard.js";
export { migrateSoulTables, type SoulChange, SoulStore } from "./soul-store.js";
export { SoulScanError, SoulWatch } from "./soul-watch.js";
