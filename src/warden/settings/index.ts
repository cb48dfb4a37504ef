export { HostVariables, migrateHostVariableTables } from "./host-variables.js";
export { profileFile } from "./profile-change.js";
export { proposalNotice, settingsCommands } from "./settings-command.js";
export { SettingsDesk } from "./settings-desk.js";
export { migrateSettingsTables } from "./settings-proposals.js";
export { createSettingsRunner } from "./settings-runner.js";
