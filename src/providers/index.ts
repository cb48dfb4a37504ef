export {
  type AssistantMessage,
  type ChatMessage,
  type ChatRequest,
  emptyAssistantMessage,
  type SystemMessage,
  type TokenUsage,
  type ToolCall,
  type ToolMessage,
  type ToolSpec,
  type UserChatMessage,
  zeroUsage,
} from "./chat-message.js";
export {
  causeText,
  classifyHttpFailure,
  classifyNetworkFailure,
  errorDetail,
  type HttpFailureClass,
  httpFailure,
  isRetryableStatus,
  type RefusalKind,
} from "./http-failure.js";
export { MessageAccumulator, type ToolCallDelta } from "./message-accumulator.js";
export {
  checkModelCall,
  LOCAL_MODEL_SERVERS,
  type LocalModelServer,
  listModels,
  type ModelCallCheck,
  type ModelListing,
  probeLocalModelServers,
} from "./model-probe.js";
export { createOpenAiProvider, type OpenAiProviderOptions } from "./openai-chat.js";
export { EmbeddingRequestError, OpenAiEmbedder, type OpenAiEmbedderOptions } from "./openai-embeddings.js";
export {
  createProviderRegistry,
  OPENROUTER_BASE_URL,
  OPENROUTER_KEY_ENV,
  type ProviderFactory,
  ProviderRegistry,
  type ProviderTuning,
  UnknownProviderError,
} from "./provider-registry.js";
export {
  type AttemptResult,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  type RetriedResult,
  type RetryOptions,
  type RetryPolicy,
  retryDelayMs,
  sleep,
  withRetries,
} from "./retry-policy.js";
export { SseParser } from "./sse-parser.js";
export {
  type FinishReason,
  PROVIDER_ERROR_CODES,
  type Provider,
  type ProviderErrorCode,
  type ProviderFailure,
  type StreamEvent,
  type StreamFunction,
  type StreamOptions,
} from "./stream-event.js";
export { estimateTextTokens, OutputMeter } from "./token-estimate.js";
