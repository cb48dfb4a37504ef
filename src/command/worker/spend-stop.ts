import { type AttemptOutcome, SPEND_CAP } from "./attempt-report.js";

/** What follows a closed attempt. */
export type AfterAttempt =
  /** Another attempt, within seed 001's retry cap. */
  | { action: "retry" }
  /** The order ends as the attempt left it (completed, or failed with no retry left). */
  | { action: "close" }
  /** A spend cap refused the attempt's model call: the whole run stops, with the refusal as its reason. */
  | { action: "stop_run"; reason: string };

/**
 * Whether a closed attempt is retried, ends its order, or stops its run. A call refused on the user's spend cap
 * is refused again on every retry until the cap renews or is raised, and so would every other order of the run:
 * retrying would only burn attempts, so the run stops instead, with the refusal (which cap, spent, limit) as its
 * reason. Any other failure is retried within the cap.
 */
export function decideAfterAttempt(
  outcome: AttemptOutcome,
  attempt: number,
  maxRetries: number,
): AfterAttempt {
  const refused = outcome.issues.find((issue) => issue.code === SPEND_CAP);
  if (refused) return { action: "stop_run", reason: `stopped by a spend cap: ${refused.message}` };
  if (outcome.status !== "review_requested" && attempt < maxRetries + 1) return { action: "retry" };
  return { action: "close" };
}
