export * from "./attest/index.js";
export { allContracts, findContract } from "./catalog.js";
export * from "./cell/index.js";
export * from "./command/index.js";
export * from "./common.js";
export * from "./dispatch/index.js";
export * from "./evolution/index.js";
export {
  type Contract,
  type ContractFormat,
  checkText,
  checkValue,
  decodeText,
  defineContract,
  parseContract,
  type Seed,
  toJsonSchema,
  UNKNOWN_KEY_MESSAGE,
  unknownKeyWarnings,
  type ValidationResult,
} from "./registry.js";
export * from "./skills/index.js";
export { findUnknownKeys } from "./unknown-keys.js";
export * from "./warden/index.js";
