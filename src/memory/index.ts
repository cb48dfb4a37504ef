export { loadMemorySettings, type MemorySettings, retrievalFromProfile } from "./brain-config.js";
export { BrainFileRefusal, readBrainFile } from "./brain-file-access.js";
export type { BrainFile, SkippedFile } from "./brain-files.js";
export { BRAIN_PATHS, BrainLayout, isIndexablePath } from "./brain-layout.js";
export {
  BrainMemory,
  type BrainMemoryOptions,
  type ForgetOptions,
  type ForgetOutcome,
  type MemoryStatus,
} from "./brain-memory.js";
export { type BrainInitResult, DEFAULT_MODEL, initBrain } from "./brain-starter.js";
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
export {
  type CompactionPolicy,
  type ContextSlice,
  compactionThreshold,
  estimateMessageTokens,
  estimateTokens,
  selectSlice,
} from "./compaction-budget.js";
export { CompactionLog, type CompactionRecord } from "./compaction-log.js";
export { BuiltinEmbedder } from "./embedders/builtin-embedder.js";
export { dotProduct, type Embedder, embedderKey, normaliseVector } from "./embedders/embedder.js";
export {
  type CreateEmbedderOptions,
  createEmbedder,
  type RemoteEmbedderFactory,
  type RemoteEmbedderOptions,
} from "./embedders/embedder-factory.js";
export {
  buildWordTableFile,
  loadWordTable,
  wordTableFile,
} from "./embedders/word-table-cache.js";
export {
  type CorrectedPlace,
  type Correction,
  type CorrectionResult,
  containsMatcher,
  correctFact,
  type FileRemoval,
  type ForgetFile,
  type ForgetMatcher,
  type ForgetPlan,
  type ForgetScope,
  type ForgetTarget,
  forgetScope,
  isForgettablePath,
  MAX_CORRECTED_PLACES,
  parseForgetTarget,
  purgeDeletedText,
  queryMatcher,
  type RemovedRegion,
  removeMatching,
  scopeMatcher,
  unitsOf,
  wordsOf,
} from "./forget/index.js";
export type { LexicalIndex } from "./index/index.js";
export {
  type ChunkKey,
  type FileChange,
  type FileRecord,
  ftsMatchExpression,
  Indexer,
  type IndexerOptions,
  type IndexProgress,
  IndexQueue,
  type IndexReport,
  type IndexRequest,
  IndexStore,
  type IndexWorkerMode,
  type PassOptions,
} from "./index/index.js";
export {
  DEFAULT_PROMOTION_RULE,
  isPromotablePath,
  type PromotionCandidate,
  type PromotionRule,
  promotionEntry,
  type RecallUse,
  selectPromotions,
} from "./promotion-rule.js";
export { appendEntry, type Remembered, type RememberOptions, type RememberTarget } from "./remember.js";
export type { RankingExplanation } from "./search/index.js";
export {
  checkSettings,
  DEFAULT_RETRIEVAL,
  FUSION_METHODS,
  type FusionMethod,
  HybridSearch,
  type HybridSearchOptions,
  type RetrievalSettings,
  type SearchHit,
  type SearchMode,
  type SearchOptions,
  type SourceAge,
  sourceAge,
} from "./search/index.js";
export type { StoredChunk } from "./stored-chunk.js";
export {
  appendTranscriptTurn,
  formatTranscriptTurn,
  SESSIONS_DIR,
  type TranscriptToolCall,
  type TranscriptTurn,
  transcriptDate,
  transcriptPath,
} from "./transcript-file.js";
export { oneLine, quoteForBrain } from "./transcript-text.js";
export {
  DEFAULT_VECTOR_TUNING,
  seededRandom,
  type VectorHit,
  VectorIndex,
  type VectorIndexTuning,
} from "./vector/index.js";
export { type BrainWatcher, type WatchOptions, watchBrain } from "./watcher.js";
