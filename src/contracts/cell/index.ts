import type { Contract } from "../registry.js";
import { agentProfileContract } from "./agent-profile.js";
import { cronJobsContract } from "./cron-jobs.js";
import { ironclawdConfigContract } from "./ironclawd-config.js";
import { irowclawConfigContract } from "./irowclaw-config.js";
import { protocolMessageContract } from "./protocol-message.js";

export { canonicalAddress, isPrivateAddress, privateRangeRefusal } from "./address-ranges.js";
export {
  type AgentProfile,
  type AgentProfileInput,
  agentProfileContract,
  agentProfileSchema,
  type RetrievalOverrides,
  retrievalOverridesSchema,
} from "./agent-profile.js";
export { absolutePath as absoluteGuestPath, brainMarkdownPath, brainPath } from "./brain-path.js";
export {
  CALENDAR_ACTIONS,
  CALENDAR_RANGE_MAX_DAYS,
  type CalendarAction,
  type CalendarArgs,
  calendarArgsSchemas,
} from "./calendar-args.js";
export {
  CALENDAR_DESCRIPTION_CHARS,
  CALENDAR_LIST_MAX,
  type CalendarEvent,
  type CalendarResults,
  calendarEventSchema,
  calendarResultSchemas,
} from "./calendar-results.js";
export {
  describeRrule,
  formatRrule,
  parseRrule,
  RRULE_FREQS,
  type Rrule,
  type RruleDay,
  type RruleFreq,
  WEEKDAYS,
  type Weekday,
} from "./calendar-rrule.js";
export { checkCronExpression, cronExpression, ianaTimeZone, isTimeZone } from "./cron-expression.js";
export {
  type CronJob,
  type CronJobs,
  type CronJobsInput,
  cronJobSchema,
  cronJobsContract,
  cronJobsSchema,
} from "./cron-jobs.js";
export {
  GITHUB_ACTIONS,
  GITHUB_PER_PAGE_MAX,
  type GithubAction,
  type GithubArgs,
  githubArgsSchemas,
} from "./github-args.js";
export {
  GITHUB_ITEM_BODY_CHARS,
  GITHUB_LIST_BODY_CHARS,
  type GithubComment,
  type GithubIssue,
  type GithubPull,
  type GithubResults,
  githubCommentSchema,
  githubIssueSchema,
  githubPullSchema,
  githubResultSchemas,
  trimBody,
} from "./github-results.js";
export {
  addressDenial,
  type FetchedPage,
  type FetchLimits,
  type HostPolicy,
  hostRefusal,
  matchesHost,
  parseFetchUrl,
  targetRefusal,
} from "./host-patterns.js";
export {
  CELL_BACKENDS,
  type CellBackendSetting,
  type ChannelCredential,
  channelCredentialSchema,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PORT,
  type DiscordBotConfig,
  discordBotSchema,
  type HostProviderConfig,
  hostProviderSchema,
  type IronclawdConfig,
  type IronclawdConfigInput,
  ironclawdConfigContract,
  ironclawdConfigSchema,
  type ModelPrice,
  modelPriceSchema,
  type SlackBotConfig,
  slackBotSchema,
  type TelegramBotConfig,
  telegramBotSchema,
  type WhatsappBotConfig,
  whatsappBotSchema,
} from "./ironclawd-config.js";
export {
  EMBEDDERS,
  type IrowclawConfig,
  type IrowclawConfigInput,
  irowclawConfigContract,
  irowclawConfigSchema,
  type ProviderConfig,
  providerSchema,
} from "./irowclaw-config.js";
export {
  MAIL_ACTIONS,
  MAIL_READ_MAX_CHARS,
  MAIL_SEARCH_MAX,
  type MailAction,
  type MailArgs,
  mailArgsSchemas,
} from "./mail-args.js";
export { type MailResults, type MailSummary, mailResultSchemas, mailSummarySchema } from "./mail-results.js";
export {
  agentName,
  cronJobId,
  envVarName,
  providerName,
  TOOL_KINDS,
  type ToolKind,
  toolName,
} from "./names.js";
export {
  type BrainStateAnswer,
  type BrainStateFile,
  brainStateAnswerSchema,
  brainStateFileSchema,
  brainStateQuerySchema,
  MAX_BRAIN_STATE_FILES,
} from "./protocol-brain-state.js";
export {
  STOP_REASONS,
  type StreamDelta,
  streamDeltaSchema,
  TOOL_OUTCOMES,
  type TokenUsage,
  type ToolOutcome,
  type ToolResult,
  type TurnComplete,
  tokenUsageSchema,
  toolResultSchema,
  turnCompleteSchema,
  type UserMessage,
  userMessageSchema,
} from "./protocol-chat.js";
export {
  COMMAND_ACTIONS,
  COMMAND_ERROR_CODES,
  COMMAND_OBJECTIVE_MAX,
  COMMAND_ORDER_STATUSES,
  COMMAND_RUN_STATUSES,
  type CommandAction,
  type CommandErrorCode,
  type CommandOrderSummary,
  type CommandRequest,
  type CommandResult,
  type CommandRun,
  commandOrderSummarySchema,
  commandRequestSchema,
  commandResultSchema,
  commandRunSchema,
} from "./protocol-command.js";
export {
  type Heartbeat,
  type Hello,
  heartbeatSchema,
  helloSchema,
  PROTOCOL_ERROR_CODES,
  type ProtocolError,
  type ProtocolErrorCode,
  protocolErrorSchema,
  type Ready,
  readySchema,
  type Shutdown,
  shutdownSchema,
} from "./protocol-control.js";
export {
  EGRESS_CHUNK_BYTES,
  EGRESS_WINDOW_BYTES,
  type EgressAck,
  type EgressClose,
  type EgressData,
  type EgressEnd,
  type EgressOpen,
  egressStreamId,
  type HelloEgress,
  helloEgressSchema,
} from "./protocol-egress.js";
export {
  BRAIN_ENTRY_KINDS,
  type BrainEntry,
  brainEntrySchema,
  FILE_ENCODINGS,
  FILE_OP_ERROR_CODES,
  FILE_OPS,
  type FileEncoding,
  type FileOp,
  type FileOpRequest,
  type FileOpResult,
  fileOpRequestSchema,
  fileOpResultSchema,
} from "./protocol-files.js";
export { messageId as protocolMessageId } from "./protocol-header.js";
export {
  INTEGRATION_ACTIONS,
  INTEGRATION_ERROR_CODES,
  INTEGRATION_NAMES,
  type IntegrationError,
  type IntegrationErrorCode,
  type IntegrationName,
  type IntegrationRequest,
  type IntegrationResult,
  integrationErrorSchema,
  integrationNameSchema,
  integrationRequestSchema,
  integrationResultSchema,
} from "./protocol-integration.js";
export {
  JOB_RUN_REASONS,
  JOB_STATUSES,
  type JobRunReason,
  type JobRunStatus,
  type JobStatus,
  type JobTrigger,
  jobStatusSchema,
  jobTriggerSchema,
} from "./protocol-jobs.js";
export {
  type ForgetScopeData,
  type ForgottenPlace,
  forgetScopeSchema,
  forgetTarget,
  forgottenPlaceSchema,
  type MemoryForgetAnswer,
  type MemoryForgotten,
  memoryForgetAnswerSchema,
  memoryForgetQuerySchema,
  memoryForgottenSchema,
} from "./protocol-memory.js";
export {
  PROTOCOL_MESSAGE_TYPES,
  type ProtocolMessage,
  type ProtocolMessageInput,
  type ProtocolMessageType,
  protocolMessageContract,
  protocolMessageSchema,
} from "./protocol-message.js";
export {
  type Cancel,
  type ChatMessage,
  cancelSchema,
  chatMessageSchema,
  type EmbedRequest,
  type EmbedResult,
  embedRequestSchema,
  embedResultSchema,
  type FetchRequest,
  type FetchResult,
  FINISH_REASONS,
  fetchRequestSchema,
  fetchResultSchema,
  type ModelEvent,
  type ModelRequest,
  modelEventSchema,
  modelRequestSchema,
  PROVIDER_ERROR_CODES,
  providerFailureSchema,
  streamEventSchema,
  toolCallSchema,
  toolSpecSchema,
} from "./protocol-model.js";
export {
  type BrainAnswer,
  type BrainQuery,
  brainAnswerSchema,
  brainQuerySchema,
  CRON_JOB_STATES,
  type CronJobState,
  cronJobStateSchema,
  FLOOR_PASSES,
  type MemoryHit,
  type MemoryIndexStatus,
  type MemoryPromotion,
  memoryHitSchema,
  memoryIndexStatusSchema,
  memoryPromotionDecisionQuerySchema,
  memoryPromotionSchema,
  memoryPromotionsQuerySchema,
  PROMOTION_DECISIONS,
  PROMOTION_STATES,
  QUERY_ERROR_CODES,
  type QueryRequest,
  type QueryResult,
  queryRequestSchema,
  queryResultSchema,
  type RankingExplanationData,
  RECENCY_SOURCES,
  rankingExplanationSchema,
  SEARCH_MODES,
  type ToolAuditEntry,
  toolAuditEntrySchema,
} from "./protocol-query.js";
export {
  SETTING_PATH_PATTERN,
  SETTINGS_ACTIONS,
  SETTINGS_CHANGES_MAX,
  type SettingChange,
  type SettingsAction,
  type SettingsArgs,
  type SettingValue,
  settingChangeSchema,
  settingsArgsSchemas,
  settingValueSchema,
} from "./settings-args.js";

/** Seed 003 (SPEC.md): warden ↔ inmate protocol messages and the TOML configs. */
export const cellContracts: Contract[] = [
  protocolMessageContract,
  ironclawdConfigContract,
  irowclawConfigContract,
  agentProfileContract,
  cronJobsContract,
];
