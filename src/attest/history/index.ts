export {
  type BrainChange,
  type BrainChangeOutcome,
  type BrainChangeSink,
  createBrainHistorySink,
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
  readBrainTree,
  treeHash,
  writeBrainTree,
} from "./brain-tree.js";
export { HistoryGitError } from "./history-git.js";
export type { TreeDiff } from "./history-read.js";
export type { RedactionRecord, Redactions } from "./history-redactions.js";
export type { HistoryRewrite } from "./history-rewrite.js";
export { historyEntryJson, restorableBrainDir } from "./history-view.js";
export { NodeStore } from "./node-store.js";
