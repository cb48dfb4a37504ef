export { AgentDatabase, openAgentDatabase } from "./agent-db.js";
export type { AgentContext, AgentEvent, AgentRunResult, AgentStopReason } from "./agent-event.js";
export {
  type CompactionHook,
  type CompactionResult,
  DEFAULT_MAX_STEPS,
  type RunAgentOptions,
  runAgent,
} from "./agent-loop.js";
export {
  AgentRuntime,
  type AgentRuntimeOptions,
  type TurnRequest,
  type TurnResult,
} from "./agent-runtime.js";
export {
  AUDIT_OUTCOMES,
  type AuditEntry,
  type AuditOutcome,
  type AuditSink,
  BrainAuditLog,
  MemoryAuditLog,
} from "./audit-log.js";
export { type Citation, citedHits, citeKey, parseCitations } from "./citations.js";
export { addUsage, ContextMeter } from "./context-meter.js";
export { ConversationMemory, type Forgotten, type TurnEnd } from "./conversation-memory.js";
export { DayLog } from "./day-log.js";
export { FORGOTTEN, jsonText, redactMessages, redactText, scrubAgentTables } from "./forget-scrub.js";
export {
  MEMORY_CHANGE_ACTIONS,
  type MemoryChange,
  type MemoryChangeAction,
  MemoryChangeLog,
  type MemoryChangeRecord,
} from "./memory-change-log.js";
export {
  createMemoryCompaction,
  createModelSummariser,
  type MemoryCompactionOptions,
} from "./memory-compaction.js";
export {
  correctMemory,
  type ForgetReport,
  type ForgetRequest,
  type ForgettingParts,
  forgetMemory,
} from "./memory-forgetting.js";
export { PROMOTION_STATES, type Promotion, type PromotionState, PromotionStore } from "./promotion-store.js";
export {
  assembleSystemPrompt,
  type GuardedPromptFile,
  type PromptFile,
  type PromptParts,
  type RecalledPassage,
  readGuardedPromptFiles,
  readPromptFiles,
} from "./prompt-assembly.js";
export {
  allowedTools,
  type LoadedProfile,
  loadRuntimeConfig,
  type RuntimeConfig,
  selectProfile,
} from "./runtime-config.js";
export { type Clock, systemClock } from "./scheduler/clock.js";
export {
  CronScheduler,
  type CronSchedulerOptions,
  type JobNotification,
  type JobOutcome,
  type JobRunScope,
  type SchedulerEvents,
} from "./scheduler/cron-scheduler.js";
export {
  JOB_STATES,
  type JobRow,
  type JobState,
  JobStore,
  type RunReason,
  type RunRow,
} from "./scheduler/job-store.js";
export { cronFor, loadJobsFile, nextRunAfter, parseJobsFile } from "./scheduler/jobs-file.js";
export { createRuntimeScheduler, type RuntimeSchedulerOptions } from "./scheduler/runtime-scheduler.js";
export { SessionStore, type StoredSession } from "./session-store.js";
export { type BashToolOptions, createBashTool } from "./tools/bash-tool.js";
export { type BrowserToolOptions, createBrowserTool, type PageFetcher } from "./tools/browser-tool.js";
export {
  type CommandAnswer,
  type CommandCall,
  type CommandClient,
  createCommandTool,
} from "./tools/command-tool.js";
export { createFileTool, type FileToolLimits } from "./tools/file-tool.js";
export { createGithubTools } from "./tools/github-tools.js";
export type { IntegrationAccess, IntegrationAnswer, IntegrationCall } from "./tools/integration-client.js";
export { createMemoryTool, type MemoryToolOperations } from "./tools/memory-tool.js";
export { PathPolicy } from "./tools/path-policy.js";
export { type GroupRun, type GroupRunOptions, runInProcessGroup } from "./tools/process-group.js";
export { readableText } from "./tools/readable-text.js";
export { createToolBox, type ToolBox, type ToolBoxOptions, type ToolOutcome } from "./tools/tool-box.js";
export {
  type AgentTool,
  defineTool,
  failed,
  ok,
  type ToolContext,
  ToolRefusal,
  type ToolResult,
  toToolSpec,
} from "./tools/tool-definition.js";
export { TranscriptLog, transcriptTurn } from "./transcript-log.js";
