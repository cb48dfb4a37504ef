import { ConflictError, formatIssues, IronclawError, type Issue } from "../core/index.js";

/** What a refused event was about: the entity whose state forbids it. */
export interface TransitionSubject {
  entity: "run" | "order";
  id: string;
  /** The entity's state when the event arrived, or "absent" when it does not exist yet. */
  state: string;
}

/**
 * An event that the run or order state machine does not allow in the current state. The message names the
 * entity, its state and the event, because that is what a writer needs to see to fix its sequence.
 */
export class IllegalTransitionError extends IronclawError {
  override readonly name = "IllegalTransitionError";
  constructor(
    readonly subject: TransitionSubject,
    readonly eventType: string,
    readonly eventId: string,
    readonly reason: string,
  ) {
    super(
      "illegal_transition",
      `${subject.entity} ${subject.id} is ${subject.state}: ${eventType} (event ${eventId}) is not allowed: ${reason}`,
    );
  }
}

/**
 * The same event_id arrived again with a different body; the stored event wins. position is null when both
 * copies were in one batch.
 */
export class EventIdConflictError extends ConflictError {
  constructor(
    readonly eventId: string,
    readonly position: number | null,
  ) {
    super(
      position === null
        ? `event_id ${eventId} appears twice in the batch with different bodies`
        : `event_id ${eventId} is already stored at position ${position} with a different body`,
    );
  }
}

/** A writer's expected stream version did not match: someone else appended to that run or order first. */
export class StreamVersionConflictError extends ConflictError {
  constructor(
    readonly stream: { kind: "run" | "order"; id: string },
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`${stream.kind} ${stream.id} is at version ${actual}, expected ${expected}`);
  }
}

/** "QUEUED, CLAIMED or BLOCKED": states as a reader would list them in a message. */
export function listStates(states: ReadonlyArray<string>): string {
  return states.length < 2 ? (states[0] ?? "") : `${states.slice(0, -1).join(", ")} or ${states.at(-1)}`;
}

/**
 * A row the database returned that does not fit its table's definition: written by another tool or damaged.
 * Reading stops here, naming the table and each column that does not fit, rather than passing it on.
 */
export class CorruptRowError extends IronclawError {
  override readonly name = "CorruptRowError";
  constructor(
    readonly source: string,
    readonly issues: Issue[],
  ) {
    super("internal", formatIssues(`stored row of ${source}`, issues));
  }
}
