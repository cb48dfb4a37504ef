export {
  copyCertifiedTurns,
  copySessionTurns,
  evidenceDirOf,
  findSessionTurns,
  runEvidenceDirOf,
  type SessionTurns,
} from "./attest/index.js";
export { AuditStore, migrateAuditTables } from "./audit-store.js";
export {
  alertViews,
  budgetOverview,
  clearBudget,
  DEFAULT_PRICES_AS_OF,
  formatUsd,
  ModelBudget,
  setBudget,
  usageReport,
  usdToMicros,
} from "./budget/index.js";
export { type CellRequestOptions, type ModelCallRecord, serveCellRequests } from "./cell-requests.js";
export { ChannelLinks } from "./channels/channel-links.js";
export { TelegramApi } from "./channels/telegram-api.js";
export type { ChatEvent, ChatService, ChatTurnInput, JobNotice } from "./chat-events.js";
export { WardenCommandCells, type WardenCommandCellsOptions } from "./command-cells.js";
export { commandOversightOptions } from "./command-oversight.js";
export { WardenPlanner } from "./command-planner.js";
export { startWarden, type Warden, type WardenOptions } from "./daemon.js";
export { type HostCommandParts, hostCommandOptions } from "./host-command.js";
export {
  HOST_CONFIG_FILE,
  prepareHome,
  readHostConfigValues,
  starterHostConfig,
  writeHostConfig,
} from "./host-config.js";
export { HOST_DB_FILE, openHostDb } from "./host-db.js";
export { HOST_ENV_FILE, hostEnvFile, readHostEnv, withHostEnv, writeHostEnv } from "./host-env-file.js";
export { HostProviders } from "./host-providers.js";
export { LoginLinks } from "./login-links.js";
export {
  type CellEgressPlan,
  PlaceholderBook,
  type ResolvedBinding,
  type SecretBinding,
  type SecretBindingInput,
  SecretBindings,
  SecretKeyring,
  SecretStore,
  type SecretUse,
  SecretUseLimiter,
  type SecretUseVerdict,
  type SkillSecretDeclaration,
  type SkillSecretSource,
  type UnresolvedSecret,
  WardenSecrets,
} from "./secrets/index.js";
export { restartThroughWarden, SentinelKeeper, type SentinelKeeperOptions } from "./sentinel-keeper.js";
export {
  CELL_IMAGE_BIN_DIRS,
  type InstalledSkill,
  readSkillsLock,
  reviewSource,
  SKILL_LIMITS,
  type SkillApproval,
  type SkillAsks,
  type SkillHostAsk,
  type SkillLockEntry,
  SkillRefusal,
  type SkillReview,
  SkillStore,
  type SkillStoreOptions,
  type SkillsLock,
} from "./skills/index.js";
export { type DiffLine, diffLines, migrateSoulTables, type SoulChange, SoulStore } from "./soul/index.js";
export { assertUserName, UserStore } from "./user-store.js";
export { runningWardenUrl } from "./warden-address.js";
export { signOutEverywhere, WebSessions } from "./web-sessions.js";
