export {
  containsMatcher,
  type FileRemoval,
  type ForgetMatcher,
  queryMatcher,
  type RemovedRegion,
  removeMatching,
  unitsOf,
  wordsOf,
} from "./forget-match.js";
export {
  applyForget,
  type ForgetFile,
  type ForgetOptions,
  type ForgetOutcome,
  type ForgetPlan,
  type ForgetScope,
  type ForgetTarget,
  forgetScope,
  isForgettablePath,
  parseForgetTarget,
  planForget,
  scopeMatcher,
} from "./forget-plan.js";
export { purgeDeletedText } from "./forget-purge.js";
export {
  type CorrectedPlace,
  type Correction,
  type CorrectionResult,
  correctFact,
  MAX_CORRECTED_PLACES,
} from "./forget-replace.js";
