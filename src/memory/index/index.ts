export { cjkTrigrams, ftsMatchExpression, ftsPhrase, ftsTerms, isCjkWord } from "./fts-query.js";
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
export { inverseDocumentFrequency, type LexicalIndex } from "./lexical-index.js";
export { PathIndex } from "./path-index.js";
