export { GitError, type GitOptions, type GitResult, hostGit } from "./git/host-git.js";
export {
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
