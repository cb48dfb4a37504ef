import { join } from "node:path";
import {
  type IngestResult,
  RUNTIME_EVENT_CONTRACT_NAME,
  RUNTIME_EVENT_CONTRACT_VERSION,
  type RuntimeEvent,
} from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import { derivedUuid, EvolutionStore, projectionRecordId, type Submitter } from "../../evolution/index.js";

/** The `source` of every envelope the warden writes about its own conversations and command runs. */
export const WARDEN_EVENT_SOURCE = "ironclaw-warden";

/** An event the warden writes: its event_id is always given, derived from what it is about. */
export type WardenEvent = RuntimeEvent & { event_id: string };

/** The longest task an event carries (a conversation's first message, a run's objective). */
export const TASK_MAX_CHARS = 200;

/** A task as events carry it: cut to TASK_MAX_CHARS with an ellipsis, so one long message cannot bloat them. */
export function cutTask(text: string): string {
  return text.length > TASK_MAX_CHARS ? `${text.slice(0, TASK_MAX_CHARS - 1)}…` : text;
}

const envelopeIdOf = (eventId: string) => derivedUuid("ironclaw-envelope", eventId);

/**
 * The warden's one evolution state (IRONCLAW_HOME/evolution), shared by the ingest route and by what the warden
 * records itself: conversations, ratings of answers, command runs. Each envelope the warden writes takes its id
 * from its event's, which callers derive from the session (and the rated answer), so writing the same thing
 * again, after a restart too, is skipped by the store as a duplicate instead of stored twice.
 */
export class EvolutionFeed {
  private store: EvolutionStore | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly options: { home: string; logger: Logger }) {}

  /** Opened at first use: a warden that records nothing leaves no state behind. */
  state(): EvolutionStore {
    this.store ??= EvolutionStore.open(join(this.options.home, "evolution"));
    return this.store;
  }

  /**
   * Ingests the events as one list of envelopes, tagged with the user whose session they are (as the ingest
   * route tags what a user sends); without one (a run nobody owns) they are the host's.
   */
  record(events: readonly WardenEvent[], submitter: Submitter | undefined): IngestResult {
    const payload = events.map((event) => ({
      contract_name: RUNTIME_EVENT_CONTRACT_NAME,
      contract_version: RUNTIME_EVENT_CONTRACT_VERSION,
      envelope_id: envelopeIdOf(event.event_id),
      source: WARDEN_EVENT_SOURCE,
      metadata: submitter ? { user_id: submitter.userId } : {},
      event,
    }));
    return this.state().ingest(Buffer.from(JSON.stringify(payload), "utf8"), submitter ? { submitter } : {});
  }

  /** The projected record a session_feedback the warden wrote became (seed 004 lineage: from both source ids). */
  projectionOf(eventId: string): string {
    return projectionRecordId(envelopeIdOf(eventId), eventId);
  }

  /**
   * Runs `work` after whatever the caller is doing (a reply being sent), after the work queued before it; a
   * failure is logged and never reaches the caller.
   */
  later(what: string, work: () => void | Promise<void>): void {
    this.pending = this.pending
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(work)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          `${what} could not be recorded for evolution`,
        ),
      );
  }

  /** Resolves once everything queued with `later` so far is recorded (or its failure logged). */
  settle(): Promise<void> {
    return this.pending;
  }
}
