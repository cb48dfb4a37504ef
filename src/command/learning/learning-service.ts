import type {
  LearningTickData,
  OrderProfile,
  PolicyEventPayload,
  PolicyState,
  PolicyView,
  RunFeedback,
} from "../../contracts/index.js";
import { ConflictError, NotFoundError, newId, nowIso } from "../../core/index.js";
import type { EventStore } from "../../ledger/index.js";
import { readOutcomeHistory } from "./order-outcomes.js";
import { type MeasuredRow, outcomeRows } from "./outcome-rows.js";
import { policyDocument } from "./policy-document.js";
import { activePolicy, type PolicyHistory, readPolicyHistory } from "./policy-history.js";

export interface LearningOptions {
  store: EventStore;
  /** The garrison its events are written under (seed 000 §0, e.g. "local"). */
  garrisonId?: string;
  /** The clock a version's created_at is read from. */
  now?: () => string;
}

/** What a tick answers: the contract's tick data, and whether it changed the active policy. */
export type LearningTick = LearningTickData & {
  outcomes: MeasuredRow[];
  changed: boolean;
  pinned: boolean;
};

/**
 * The learning service (seed 000 §3.10): measures how each profile did on each task type from the ledger, keeps
 * a versioned routing policy there (POLICY_UPDATED), and answers the commanding officer which profile an order
 * of a type should get. Every change — learned, pinned, unpinned, rolled back — is an event, so the ledger says
 * which events produced a version and who moved it. It holds no state: several processes can share a ledger.
 */
export class Learning {
  private readonly store: EventStore;
  private readonly garrisonId: string;
  private readonly now: () => string;
  // One change at a time in this process; across processes a learned version's event_id settles the race.
  private queue: Promise<unknown> = Promise.resolve();
  private cached: { head: number; history: PolicyHistory } | undefined;

  constructor(options: LearningOptions) {
    this.store = options.store;
    this.garrisonId = options.garrisonId ?? "local";
    this.now = options.now ?? nowIso;
  }

  /** POST /learn/tick: recomputes the outcomes; appends a new version when the routing changed and none is pinned. */
  tick(): Promise<LearningTick> {
    return this.exclusive(async () => {
      const outcomes = await readOutcomeHistory(this.store);
      const policy = await this.history();
      const rows = outcomeRows(outcomes);
      const previous = activePolicy(policy);
      const version = policy.latest + 1;
      const draft = policyDocument({
        version,
        createdAt: this.now(),
        rows,
        corrections: [...outcomes.ratings.values()].filter((r) => r === "down").length,
        derivedFrom: {
          after_position: outcomes.afterPosition,
          through_position: outcomes.throughPosition,
          events: outcomes.events,
          first_event_id: outcomes.first?.event_id ?? null,
          last_event_id: outcomes.last?.event_id ?? null,
        },
        previous,
      });
      const changed = !policy.pinned && (previous === undefined || draft.diff.changes.length > 0);
      if (changed) await this.append({ action: "learned", policy_version: version, policy: draft }, version);
      const routed = changed ? draft : (previous ?? draft);
      return {
        policy_version: routed.version,
        window: { from: outcomes.first?.ts ?? draft.created_at, to: outcomes.last?.ts ?? draft.created_at },
        events_considered: outcomes.events,
        outcomes: rows,
        corrections: draft.corrections,
        recommendations: routed.routes.map((r) => ({
          task_type: r.task_type,
          profile: r.profile.name,
          reason: r.reason,
        })),
        changed,
        pinned: policy.pinned,
      };
    });
  }

  /** The active version, or the one asked for, with its diff against the version before it. */
  async policy(version?: number): Promise<PolicyView> {
    const history = await this.history();
    const policy = version === undefined ? activePolicy(history) : history.versions.get(version);
    if (version !== undefined && !policy) throw new NotFoundError("policy version", String(version));
    return { active_version: history.active, pinned: history.pinned, policy: policy ?? null };
  }

  /** Every version, oldest first, with how many routes each has and how many it changed. */
  async versions(): Promise<PolicyState> {
    const history = await this.history();
    return {
      active_version: history.active,
      pinned: history.pinned,
      versions: [...history.versions.values()].map((p) => ({
        version: p.version,
        created_at: p.created_at,
        routes: p.routes.length,
        changes: p.diff.changes.length,
        active: p.version === history.active,
      })),
    };
  }

  /** Holds `version` as the active policy: ticks measure but do not change it until it is unpinned. */
  pin(version: number, by: string): Promise<PolicyView> {
    return this.change(version, (history) => {
      if (history.pinned && history.active === version)
        throw new ConflictError(`policy version ${version} is already pinned`);
      return { action: "pinned", policy_version: version, by };
    });
  }

  /** Lets ticks change the active policy again. */
  unpin(by: string): Promise<PolicyView> {
    return this.change(undefined, (history) => {
      if (!history.pinned || history.active === null) throw new ConflictError("no policy version is pinned");
      return { action: "unpinned", policy_version: history.active, by };
    });
  }

  /** Makes an earlier version active again; a pin stays (on the version rolled back to). */
  rollback(version: number, by: string): Promise<PolicyView> {
    return this.change(version, (history) => {
      if (history.active === version)
        throw new ConflictError(`policy version ${version} is already the active one`);
      return { action: "rolled_back", policy_version: version, from_version: history.active ?? version, by };
    });
  }

  /** The profile the active policy routes a task type to, or undefined when it has no route for it. */
  async profileFor(taskType: string): Promise<OrderProfile | undefined> {
    const route = activePolicy(await this.history())?.routes.find((r) => r.task_type === taskType);
    return route ? { name: route.profile.name, model: route.profile.model } : undefined;
  }

  /** Records a person's rating of a run (RUN_UPDATED with `feedback`); a thumbs-down is a correction. */
  async recordFeedback(runId: string, feedback: RunFeedback, by: string): Promise<{ event_id: string }> {
    const run = await this.store.getRun(runId);
    if (!run) throw new NotFoundError("run", runId);
    const { event_id } = await this.store.append({
      type: "RUN_UPDATED",
      garrison_id: this.garrisonId,
      theater_id: run.theater_id,
      run_id: runId,
      payload: { feedback: { ...feedback, by, at: this.now() } },
    });
    return { event_id };
  }

  private change(
    version: number | undefined,
    decide: (history: PolicyHistory) => PolicyEventPayload,
  ): Promise<PolicyView> {
    return this.exclusive(async () => {
      const history = await this.history();
      if (version !== undefined && !history.versions.has(version))
        throw new NotFoundError("policy version", String(version));
      await this.append(decide(history));
      return this.policy();
    });
  }

  private async append(payload: PolicyEventPayload, learnedVersion?: number): Promise<void> {
    await this.store.append({
      // A learned version's id is its number: two ticks racing on one ledger cannot both write version n.
      ...(learnedVersion === undefined ? { event_id: newId() } : { event_id: `policy-v${learnedVersion}` }),
      type: "POLICY_UPDATED",
      garrison_id: this.garrisonId,
      theater_id: null,
      run_id: null,
      payload,
    });
  }

  /**
   * The policy's history, read again only when the ledger's head moved: the CO asks once per order it plans,
   * and every learned version carries its whole document.
   */
  private async history(): Promise<PolicyHistory> {
    const head = await this.store.head();
    if (this.cached?.head !== head) this.cached = { head, history: await readPolicyHistory(this.store) };
    return this.cached.history;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
