export { type ConfigDraft, draftConfigChange, looksLikeSecret, maskSecrets } from "./config-change.js";
export { unifiedDiff } from "./file-diff.js";
export { HostVariables, migrateHostVariableTables } from "./host-variables.js";
export { proposalNotice, settingsCommands } from "./settings-command.js";
export {
  type SettingsActor,
  SettingsDesk,
  type SettingsDeskOptions,
  type SettingsProposalView,
} from "./settings-desk.js";
export { migrateSettingsTables } from "./settings-proposals.js";
export { createSettingsRunner } from "./settings-runner.js";
export { setTomlKey, settingSegments, tomlKey } from "./toml-edit.js";
