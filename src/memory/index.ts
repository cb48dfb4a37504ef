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
export {
  containsMatcher,
  type FileRemoval,
  type ForgetMatcher,
  queryMatcher,
  type RemovedRegion,
  removeMatching,
  unitsOf,
  wordsOf,
} from "./forget-match.js";
export {
  type ForgetFile,
  type ForgetPlan,
  type ForgetScope,
  type ForgetTarget,
  forgetScope,
  isForgettablePath,
  parseForgetTarget,
  scopeMatcher,
} from "./forget-plan.js";
export { purgeDeletedText } from "./forget-purge.js";
export {
  type CorrectedPlace,
  type Correction,
  type CorrectionResult,
  correctFact,
  MAX_CORRECTED_PLACES,
} from "./forget-replace.js";
export { ftsMatchExpression } from "./fts-query.js";
export {
  checkSettings,
  DEFAULT_RETRIEVAL,
  HybridSearch,
  type HybridSearchOptions,
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
  type IndexWorkerMode,
  type PassOptions,
} from "./indexer.js";
export { seededRandom } from "./kmeans.js";
export type { LexicalIndex } from "./lexical-index.js";
export {
  DEFAULT_PROMOTION_RULE,
  isPromotablePath,
  type PromotionCandidate,
  type PromotionRule,
  promotionEntry,
  type RecallUse,
  selectPromotions,
} from "./promotion-rule.js";
export type { RankingExplanation } from "./ranking-explanation.js";
export { type SourceAge, sourceAge } from "./ranking-recency.js";
export { appendEntry, type Remembered, type RememberOptions, type RememberTarget } from "./remember.js";
export { FUSION_METHODS, type FusionMethod } from "./retrieval-settings.js";
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
  type VectorHit,
  VectorIndex,
  type VectorIndexTuning,
} from "./vector-index.js";
export { type BrainWatcher, type WatchOptions, watchBrain } from "./watcher.js";
