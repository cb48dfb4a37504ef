import type { Contract } from "../registry.js";
import { completionContract } from "./completion.js";
import { dispatchContract } from "./dispatch.js";

export {
  type Completion,
  type CompletionFields,
  completionContract,
  completionFieldsSchema,
  completionSchema,
  missingCompletionFields,
} from "./completion.js";
export { type CompletionBlock, decodeCompletionText, extractCompletionBlock } from "./completion-block.js";
export { type CompletionVerdict, evaluateCompletion, type GatedCompletion } from "./completion-gate.js";
export {
  type Dispatch,
  type DispatchInput,
  dispatchContract,
  dispatchSchema,
  REQUIRED_COMPLETION_FIELDS,
  TASK_TYPES,
} from "./dispatch.js";
export {
  type DispatchDecision,
  type DispatchPolicy,
  decideDispatch,
  WORKER_RUN_STATUSES,
  type WorkerRunStatus,
  workerRunStatusSchema,
} from "./dispatch-decision.js";
export {
  COMPLETION_FIELDS,
  type CompletionField,
  JARVIS_BRANCH,
  jarvisBranchSchema,
  RUN_ID_MAX_LENGTH,
  runIdSchema,
} from "./run-fields.js";

/** Seed 001 (dispatch contract): worker dispatch, `<completion>` block. */
export const dispatchContracts: Contract[] = [dispatchContract, completionContract];
