// The inmate: everything that runs inside a cell. The cell bundle is built from irowclaw.ts alone; host code
// imports none of this (tests and the CLI's in-process cells reach it through this surface).
export { runFileOp } from "./brain-file-ops.js";
export type { CellHandler, FileOpOutcome, GuestContext, JobProgress, TurnEvent } from "./cell-handler.js";
export { serveCell } from "./cell-server.js";
export { createEchoDevHandler } from "./echo-handler.js";
export { createShellTestHandler, type ShellOutcome } from "./shell-test-handler.js";
