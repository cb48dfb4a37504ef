export { type AttemptPlan, planAttempt } from "./attempt-plan.js";
export type { AttemptOutcome, AttemptStatus } from "./attempt-report.js";
export { dispatchFor, orderPrompt } from "./order-dispatch.js";
export { Worker, type WorkerOptions, type WorkerOutcome } from "./worker.js";
export { orderFileOf, type VaultWorktrees, type WorkerVault, workerVaultOf } from "./worker-vault.js";
