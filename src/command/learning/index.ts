export {
  Learning,
  type LearningOptions,
  type LearningTick,
} from "./learning-service.js";
export type { MeasuredRow } from "./outcome-rows.js";
