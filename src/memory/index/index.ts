export { IndexQueue, type IndexRequest } from "./index-queue.js";
export { cjkMark } from "./index-schema.js";
export { type ChunkKey, type FileChange, type FileRecord, IndexStore } from "./index-store.js";
export {
  DEFAULT_MAX_FILE_BYTES,
  Indexer,
  type IndexerOptions,
  type IndexProgress,
  type IndexReport,
  type IndexWorkerMode,
  type PassOptions,
} from "./indexer.js";
export type { LexicalIndex } from "./lexical-index.js";
