export type { CommandCellSpec, CommandCells } from "./command-cells.js";
export {
  type CopyOutOptions,
  copyTreeIn,
  copyTreeOut,
  DEFAULT_TRANSFER_LIMITS,
  type SkippedPath,
  type TransferLimits,
  type TransferReport,
} from "./tree-transfer.js";
