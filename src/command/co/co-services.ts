import type { AarFile, OrderProfile } from "../../contracts/index.js";
import type { OrderSnapshot } from "../../ledger/index.js";

/** What the planner is asked: the run's objective, and whose and where it is. */
export interface PlanRequest {
  runId: string;
  objective: string;
  theaterId: string;
  userId: string;
}

/**
 * Turns an objective into orders (seed 000 §3.2 "Produces 1-N orders"). The warden's planner asks the user's
 * agent profile through its budgeted model proxy and returns the plan: the JSON value, or the model's text, which
 * the CO reads with planFromModelText. Either way the CO checks it against the plan format before anything
 * reaches the ledger.
 */
export interface Planner {
  plan(input: PlanRequest): Promise<unknown>;
}

/** How one order of the run ended, as synthesis sees it. */
export interface OrderOutcome {
  order_id: string;
  key: string;
  type: string;
  objective: string;
  outcome: "integrated" | "failed" | "cancelled";
  /** Why it failed or was cancelled; absent for integrated orders. */
  reason?: string;
  /** The order's after-action report, when it wrote one that could be read and is well-formed. */
  aar?: AarFile;
}

/** What the synthesizer is asked: the objective and every order's outcome, in plan order. */
export interface SynthesisRequest {
  runId: string;
  theaterId: string;
  userId: string | null;
  objective: string;
  /** COMPLETE when every order was integrated, FAILED when any failed or was cancelled. */
  status: "COMPLETE" | "FAILED";
  orders: OrderOutcome[];
}

/**
 * Writes the run's final reply to the user from its orders' outcomes (seed 000 §3.2 "Reads artifacts/AARs and
 * produces final reply"), usually with a model. Without one the CO composes a plain reply itself.
 */
export interface Synthesizer {
  synthesize(input: SynthesisRequest): Promise<string>;
}

/**
 * Reads an order's aar.json from its worktree (the snapshot names the worktree and the AAR's path). Worktrees
 * are written by cells, so the reader must not follow links out of them; the CO checks what it returns against
 * the AAR contract again. Undefined when there is no readable AAR.
 */
export type AarReader = (order: OrderSnapshot) => Promise<AarFile | undefined>;

/**
 * Picks the profile of an order whose plan names none: the learning service's routing policy (seed 000 §3.10,
 * "which the commanding officer uses"). Undefined when it has no route for the task type: the default applies.
 */
export interface ProfileRouter {
  profileFor(taskType: string): Promise<OrderProfile | undefined>;
}
