export {
  type BoundedScratch,
  boundedScratch,
  type CommandCellSpec,
  type CommandCells,
  type CopyOutOptions,
  copyTreeIn,
  copyTreeOut,
  DEFAULT_TRANSFER_LIMITS,
  type SkippedPath,
  type TransferLimits,
  type TransferReport,
} from "./cells/index.js";
export type {
  AarReader,
  OrderOutcome,
  Planner,
  PlanRequest,
  ProfileRouter,
  SynthesisRequest,
  Synthesizer,
} from "./co/co-services.js";
export { CommandingOfficer, type CommandingOfficerOptions } from "./co/commanding-officer.js";
export { MAX_PLAN_ORDERS, type PlannedOrderReply, type PlanReply, parsePlanReply } from "./co/plan-reply.js";
export { planFromModelText } from "./co/plan-text.js";
export {
  DEFAULT_ORDER_DEFAULTS,
  type OrderDefaults,
  type PlannedOrder,
  plannedOrderSchema,
} from "./co/planned-order.js";
export type { CreateRunInput } from "./co/run-request.js";
export type { OrderView, RunOrderView, RunView } from "./co/run-views.js";
export { CommandService, type CommandServiceOptions } from "./command-service.js";
export { GitError, type GitOptions, type GitResult, hostGit } from "./git/host-git.js";
export {
  CellGateRunner,
  GATE_DIR,
  type GateCellSpec,
  type GateCellsOptions,
  type GateCommandResult,
  type GateOutcome,
  type GateRequest,
  type GateRunner,
  gateCommandResultSchema,
} from "./integration/gate-runner.js";
export {
  type IntegrateInput,
  type IntegrationResult,
  Integrator,
  type IntegratorOptions,
} from "./integration/integrate.js";
export { IntegrationRefusedError } from "./integration/integration-refusal.js";
export { enqueueJobRequest } from "./job-request.js";
export {
  Learning,
  type LearningOptions,
  type LearningTick,
  type MeasuredRow,
} from "./learning/index.js";
export {
  ActiveOrders,
  DEAD_AFTER_PERIODS,
  DEFAULT_MIN_FREE_DISK_BYTES,
  DEFAULT_THRESHOLDS,
  DutyOfficer,
  Observer,
  type Oversight,
  type OversightOptions,
  type OversightThresholds,
  openOversight,
  type PatrolRequestOptions,
  reachableProbe,
  Sentinel,
  type SentinelOptions,
  type ServiceProbe,
} from "./oversight/index.js";
export type { ClaimedJob, EnqueueResult, JobQueue, QueueCounts } from "./queue/job-queue.js";
export { PostgresJobQueue, type PostgresQueueOptions } from "./queue/postgres-queue.js";
export { SqliteJobQueue, type SqliteQueueOptions } from "./queue/sqlite-queue.js";
export { type ChatInput, DEFAULT_CHAT_WAIT_MS, RunDriver } from "./run-driver.js";
export { listRuns, orderOwner, runOwner } from "./run-owners.js";
export {
  type TheaterAddRequest,
  type TheaterAddResult,
  type TheaterRecord,
  TheaterRegistry,
  theaterRecordSchema,
} from "./vault/theaters.js";
export { checkWorktree, type WorktreeRef, worktreeGit } from "./vault/worktree-guard.js";
export {
  type ArchiveResult,
  type PrepareOptions,
  Vault,
  type VaultOptions,
  type WorktreeCreateInput,
  type WorktreeInfo,
} from "./vault/worktrees.js";
export {
  type AttemptOutcome,
  type AttemptPlan,
  type AttemptStatus,
  dispatchFor,
  orderFileOf,
  orderPrompt,
  planAttempt,
  type VaultWorktrees,
  Worker,
  type WorkerOptions,
  type WorkerOutcome,
  type WorkerVault,
  workerVaultOf,
} from "./worker/index.js";
