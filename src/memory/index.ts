export { loadMemorySettings, type MemorySettings, retrievalFromProfile } from "./brain-config.js";
export { BRAIN_PATHS, BrainLayout, isIndexablePath } from "./brain-layout.js";
export { BrainMemory, type BrainMemoryOptions, type MemoryStatus } from "./brain-memory.js";
export { type BrainInitResult, initBrain } from "./brain-starter.js";
export { chunkId, contentHash } from "./chunk-id.js";
export { type Chunk, type ChunkOptions, chunkMarkdown, DEFAULT_CHUNK_MAX_BYTES } from "./chunker.js";
export {
  type CompactionInput,
  type CompactionOutcome,
  type CompactionTarget,
  flushBeforeCompaction,
  messageRef,
  type Summariser,
} from "./compaction.js";
export { CompactionLog, type CompactionRecord } from "./compaction-log.js";
export { BuiltinEmbedder } from "./embedders/builtin-embedder.js";
export { dotProduct, type Embedder, embedderKey, normaliseVector } from "./embedders/embedder.js";
export { createEmbedder } from "./embedders/embedder-factory.js";
export {
  EmbeddingRequestError,
  OpenAiEmbedder,
  type OpenAiEmbedderOptions,
} from "./embedders/openai-embedder.js";
export {
  buildWordTableFile,
  loadWordTable,
  wordTableFile,
} from "./embedders/word-table-cache.js";
export { ftsMatchExpression } from "./fts-query.js";
export {
  checkSettings,
  DEFAULT_RETRIEVAL,
  HybridSearch,
  type RetrievalSettings,
  type SearchHit,
  type SearchMode,
  type SearchOptions,
} from "./hybrid-search.js";
export { IndexQueue, type IndexRequest } from "./index-queue.js";
export { type ChunkKey, type FileChange, type FileRecord, IndexStore } from "./index-store.js";
export {
  Indexer,
  type IndexerOptions,
  type IndexProgress,
  type IndexReport,
  type PassOptions,
} from "./indexer.js";
export { seededRandom } from "./kmeans.js";
export type { LexicalIndex } from "./lexical-index.js";
export { appendEntry, type Remembered, type RememberOptions, type RememberTarget } from "./remember.js";
export type { StoredChunk } from "./stored-chunk.js";
export {
  type CompactionPolicy,
  type ContextSlice,
  compactionThreshold,
  estimateMessageTokens,
  estimateTokens,
  selectSlice,
} from "./token-budget.js";
export {
  DEFAULT_VECTOR_TUNING,
  type VectorHit,
  VectorIndex,
  type VectorIndexTuning,
} from "./vector-index.js";
export { type BrainWatcher, type WatchOptions, watchBrain } from "./watcher.js";
