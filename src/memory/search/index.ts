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
export type { RankingExplanation } from "./ranking-explanation.js";
export { type SourceAge, sourceAge } from "./ranking-recency.js";
export { FUSION_METHODS, type FusionMethod } from "./retrieval-settings.js";
