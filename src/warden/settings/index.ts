export { type BudgetCaps, draftBudgetChange } from "./budget-change.js";
export { type ConfigDraft, draftConfigChange, looksLikeSecret, maskSecrets } from "./config-change.js";
export { unifiedDiff } from "./file-diff.js";
export { HostVariables, migrateHostVariableTables } from "./host-variables.js";
export { draftProfileChange, profileFile } from "./profile-change.js";
export { effectSentence, proposalNotice, settingsCommands } from "./settings-command.js";
export {
  type ProposeArgs,
  type SettingsActor,
  SettingsDesk,
  type SettingsDeskOptions,
  type SettingsProposalView,
} from "./settings-desk.js";
export { migrateSettingsTables } from "./settings-proposals.js";
export { createSettingsRunner } from "./settings-runner.js";
export { type BrainFiles, parseTarget, type TakesEffect, targetLabel } from "./settings-targets.js";
export { setTomlKey, settingSegments, tomlKey } from "./toml-edit.js";
