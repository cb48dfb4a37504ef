export { AsyncQueue } from "./async-queue.js";
export { canonicalBytes, canonicalJson, hashCanonical, sha256Hex } from "./canonical-json.js";
export { type ConfigNode, configKeyPaths, configTree, undescribedKeys } from "./config-schema-tree.js";
export {
  appendOpenFile,
  closeDir,
  closeFile,
  type DirIdentity,
  entryInfo,
  identityOf,
  listDirectory,
  type OpenDir,
  type OpenFile,
  openDirectory,
  openFile,
  PathRefusal,
  pathComponents,
  type ReadOnlyDirs,
  readOpenFile,
  removeFile,
  replaceOpenFile,
  requireDescriptorPaths,
} from "./descriptor-walk.js";
export { Emitter } from "./emitter.js";
export {
  ConfigError,
  ConflictError,
  formatIssues,
  InvalidInputError,
  IronclawError,
  type Issue,
  jsonPath,
  NotFoundError,
  ValidationError,
} from "./errors.js";
export { ironclawHome } from "./home.js";
export { isUlid, newId, nowIso, ulidTime } from "./ids.js";
export { createLogger, type Logger } from "./logger.js";
export { currentOwner, isOwnerAlive } from "./process-owner.js";
export {
  type ProgramOptions,
  prepareProgramRunner,
  type RunOutcome,
  runProgram,
  runProgramViaHelper,
} from "./program-runner.js";
export { isWithin, realpathOfDeepestExisting } from "./real-path.js";
export { findKeyLine, loadTomlConfig, parseTomlConfig } from "./toml-config.js";
export { missingTemplateKeys, renderTomlTemplate, templateKeyPaths, tomlValue } from "./toml-template.js";
export { dotProduct, normaliseVector } from "./vector-math.js";
export { clearStale, readOwner, tryTake, withWriterLock } from "./writer-lock.js";
export { issuesFromZod } from "./zod-issues.js";
