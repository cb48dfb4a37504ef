export { type RunOutcome, runProgram } from "../core/index.js";
export {
  type BackendChoice,
  type CellBackendName,
  chooseCellBackend,
  type HostAbilities,
} from "./backend-choice.js";
export { configuredImage, createConfiguredBackend, loadHostConfig, usersDir } from "./backend-factory.js";
export { type BwrapBackendOptions, createBwrapBackend } from "./backends/bwrap.js";
export {
  type BwrapLimits,
  bwrapNodeOptions,
  DEFAULT_BWRAP_LIMITS,
  v8ReserveMiB,
} from "./backends/bwrap-args.js";
export { prepareScratchRoot, SCRATCH_ROOT, STAGE_ROOT } from "./backends/bwrap-stage.js";
export { createMicrovmBackend, type MicrovmBackendOptions, TCG_WARNING } from "./backends/microvm.js";
export { type MicrovmCommand, microvmArgs } from "./backends/microvm-command.js";
export { hasSavedVm, sweepSavedVms } from "./backends/microvm-save.js";
export { createProcessBackend, PROCESS_WARNING, type ProcessBackendOptions } from "./backends/process.js";
export { type BootProbe, chooseMicrovmAccel, probeKernelBoot } from "./boot-probe.js";
export { brainLockHolder } from "./brain-lock.js";
export {
  assertUserId,
  type BlankCell,
  type BlankCellSpec,
  type BrainSeed,
  type CellBackend,
  type CellExit,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
  type CellStats,
} from "./cell.js";
export {
  type CellCgroup,
  type CellCgroupLimits,
  createCellCgroup,
  sweepStaleCellCgroups,
} from "./cell-cgroup.js";
export { describeCellExit } from "./cell-exit.js";
export { type KeptCell, keeperFiles, listKeptCells, runCellKeeper } from "./cell-keeper.js";
export { type CellLimitReport, probeBrainImages, probeToolSandbox, reportCellLimits } from "./cell-limits.js";
export {
  CellCrashLoopError,
  type CellEvent,
  type CellFailure,
  type CellInfo,
  CellManager,
  type CellManagerOptions,
} from "./cell-manager.js";
export {
  bundleRuntime,
  defaultRuntime,
  distRuntime,
  type GuestRuntime,
  PACKAGE_ROOT,
  sourceRuntime,
} from "./guest-runtime.js";
export {
  type AccelProbe,
  DEBUG_EXIT_STATUS,
  debugExitFirmware,
  firstLine,
  probeAccelerator,
  probeBwrap,
  probeQemuMicrovm,
  QEMU_BINARY,
} from "./host-probe.js";
export { listCompileCaches, type WarmUpResult, warmCompileCache } from "./image/compile-cache.js";
export {
  type BundleOptions,
  bundleGuest,
  GUEST_BUNDLE_DIR,
  type GuestBundleManifest,
  readGuestBundle,
} from "./image/guest-bundle.js";
export {
  type BuildOptions,
  type BuildProgress,
  buildImage,
  type ImageManifest,
} from "./image/image-builder.js";
export { type ImagePaths, imagePaths } from "./image/image-paths.js";
export { type ImageStatus, readImageStatus } from "./image/image-status.js";
export {
  cellInit,
  initramfsInit,
  SNAPSHOT_REFUSED_STATUS,
} from "./image/init-scripts.js";
export {
  MICROVM_SNAPSHOT_NAME,
  makeMicrovmSnapshot,
  microvmSnapshotPath,
} from "./image/microvm-snapshot.js";
export {
  defaultCellNodeOptions,
  makeStartupSnapshots,
  type SnapshotResult,
  snapshotNodeOptions,
} from "./image/startup-snapshot-build.js";
export { treeRssBytes } from "./process-tree.js";
export { SKILLS_IN_CELL } from "./skills-dir.js";
export { ensureSkillsDisk, type SkillsDisk } from "./skills-disk.js";
export { PACKAGE_IN_CELL, startupSnapshotName, usableStartupSnapshot } from "./startup-snapshot.js";
export { userCellSpec } from "./user-cell-spec.js";
export { WarmPool, type WarmPoolOptions } from "./warm-pool.js";
export { prepareWordTableDir } from "./word-table-home.js";
