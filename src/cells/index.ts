export {
  type BackendChoice,
  type CellBackendName,
  chooseCellBackend,
  type HostAbilities,
} from "./backend-choice.js";
export {
  type AccelProbe,
  DEBUG_EXIT_STATUS,
  debugExitFirmware,
  firstLine,
  probeAccelerator,
  QEMU_BINARY,
  type RunOutcome,
  runProgram,
} from "./host-probe.js";
