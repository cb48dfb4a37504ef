export { type AttachedTreeCheck, scratchCopyOf, takeBackAttachedTree } from "./attached-tree.js";
export { type BoundedScratch, boundedScratch, type ScratchCap } from "./bounded-scratch.js";
export type { CommandCellSpec, CommandCells } from "./command-cells.js";
export { isGitName, readHostFile, removeHostFile, SkipPath, writeHostFile } from "./host-tree.js";
export {
  type CopyOutOptions,
  copyTreeIn,
  copyTreeOut,
  DEFAULT_TRANSFER_LIMITS,
  type SkippedPath,
  type TransferLimits,
  type TransferReport,
} from "./tree-transfer.js";
