export {
  type BrainChange,
  type BrainChangeOutcome,
  type BrainChangeSink,
  type BrainReader,
  createBrainHistorySink,
  type ReportedBrain,
} from "./brain-change-sink.js";
export { BRAIN_DATABASE, hashBrainDatabase } from "./brain-database.js";
export {
  type BrainFileChange,
  BrainHistory,
  type HistoryEntry,
  type RecordInput,
  type RedactOutcome,
} from "./brain-history.js";
export {
  type BrainTree,
  BrainTreeError,
  isHistoryPath,
  MAX_FILE_BYTES as MAX_HISTORY_FILE_BYTES,
  MAX_FILES as MAX_HISTORY_FILES,
  MAX_TREE_BYTES as MAX_HISTORY_TREE_BYTES,
  readBrainTree,
  treeHash,
  writeBrainTree,
} from "./brain-tree.js";
export { type ExportedHistory, exportHistory } from "./history-export.js";
export { HistoryGitError } from "./history-git.js";
export {
  hasExportedHistory,
  historyExists,
  type ImportedHistory,
  importHistory,
} from "./history-import.js";
export {
  HISTORY_BUNDLE_FILE,
  HISTORY_DIR,
  HISTORY_MANIFEST_FILE,
  HISTORY_REDACTIONS_FILE,
  type HistoryManifest,
  historyManifestSchema,
} from "./history-manifest.js";
export type { TreeDiff } from "./history-read.js";
export type { RedactionRecord, Redactions } from "./history-redactions.js";
export type { HistoryRewrite } from "./history-rewrite.js";
export { historyEntryJson, restorableBrainDir } from "./history-view.js";
export { NodeStore } from "./node-store.js";
