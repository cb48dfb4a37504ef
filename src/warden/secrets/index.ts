export type {
  CellEgressPlan,
  ResolvedBinding,
  SkillSecretDeclaration,
  SkillSecretSource,
  UnresolvedSecret,
} from "./cell-egress-plan.js";
export { PLACEHOLDER_PREFIX, PlaceholderBook } from "./placeholder-book.js";
export { type SecretBinding, type SecretBindingInput, SecretBindings } from "./secret-bindings.js";
export { SECRETS_KEY_FILE, SecretKeyError, SecretKeyring } from "./secret-key.js";
export {
  type AuditSink,
  migrateSecretTables,
  type SecretInfo,
  SecretStore,
  SecretUnreadableError,
} from "./secret-store.js";
export { type SecretUse, SecretUseLimiter, type SecretUseVerdict } from "./secret-use-limiter.js";
export { WardenSecrets, type WardenSecretsOptions } from "./warden-secrets.js";
