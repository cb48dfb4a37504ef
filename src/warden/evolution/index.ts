export { type AnswerRatingInput, ChatEvolution, type RecordedRating } from "./chat-sessions.js";
export {
  cutTask,
  EvolutionFeed,
  TASK_MAX_CHARS,
  WARDEN_EVENT_SOURCE,
  type WardenEvent,
} from "./evolution-feed.js";
export { FEEDBACK_USAGE, feedbackCommand } from "./feedback-command.js";
export { RunFeed } from "./run-feed.js";
export { type Target, WardenGovernance } from "./warden-governance.js";
