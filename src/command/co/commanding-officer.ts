import type { DispatchData, PlanData, SynthesizeData } from "../../contracts/index.js";
import { ConflictError, NotFoundError, newId } from "../../core/index.js";
import type { EventStore, RunSnapshot } from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import { cancelRun } from "./cancel-run.js";
import type { AarReader, Planner, ProfileRouter, Synthesizer } from "./co-services.js";
import { dispatchRun } from "./dispatch-run.js";
import { type PlannedOrderReply, parsePlanReply } from "./plan-reply.js";
import { planFromModelText } from "./plan-text.js";
import { DEFAULT_ORDER_DEFAULTS, type OrderDefaults, plannedOrderOf } from "./planned-order.js";
import { type CreateRunInput, checkRunRequest } from "./run-request.js";
import { type OrderView, type RunView, readOrderView, readRunView } from "./run-views.js";
import { synthesizeRun } from "./synthesize-run.js";

export interface CommandingOfficerOptions {
  store: EventStore;
  queue: JobQueue;
  planner: Planner;
  /** Writes the final reply; without one the CO composes a plain reply from the AARs. */
  synthesizer?: Synthesizer;
  /** Reads an order's aar.json from its worktree for synthesis; without one replies are built from the ledger. */
  readAar?: AarReader;
  /** Where the vault puts an order's worktree: the job message's worktree_path. */
  theaterWorktreePath(theaterId: string, orderId: string): string;
  /** The garrison every event is written under (seed 000 §0, e.g. "local"). */
  garrisonId?: string;
  /** Profile and constraints for what a plan leaves out. */
  orderDefaults?: OrderDefaults;
  /** The profile for orders whose plan names none (the learning policy); without it the default profile. */
  profileRouter?: ProfileRouter;
}

/**
 * The commanding officer (seed 000 §3.2): creates runs, plans them into orders, dispatches orders whose
 * dependencies are integrated, and concludes runs with a reply. It keeps no state of its own: every decision is
 * read from the ledger and written back to it, so any number of COs can serve the same ledger.
 */
export class CommandingOfficer {
  private readonly store: EventStore;
  private readonly garrisonId: string;

  constructor(private readonly options: CommandingOfficerOptions) {
    this.store = options.store;
    this.garrisonId = options.garrisonId ?? "local";
  }

  /** POST /runs: a new OPEN run for the user's objective; returns its id. */
  async createRun(input: CreateRunInput): Promise<string> {
    const { userId, theaterId, objective, metadata } = checkRunRequest(input);
    const runId = newId();
    const payload = { objective, user_id: userId, ...(metadata === undefined ? {} : { metadata }) };
    await this.store.append({ type: "RUN_CREATED", ...this.ids(theaterId, runId), payload });
    return runId;
  }

  /** POST /runs/{id}/plan: asks the planner, checks its plan, appends one ORDER_CREATED per order at once. */
  async plan(runId: string): Promise<PlanData> {
    const run = await this.openRun(runId);
    if (run.orders.length > 0)
      throw new ConflictError(`run ${runId} is already planned: it has ${run.orders.length} orders`);
    if (run.objective === null) throw new ConflictError(`run ${runId} has no objective to plan`);
    const userId = await this.userOf(runId);
    if (userId === null)
      throw new ConflictError(`run ${runId} names no user_id in its RUN_CREATED: no one to plan for`);
    const reply = await this.options.planner.plan({
      runId,
      objective: run.objective,
      theaterId: run.theater_id,
      userId,
    });
    const plan = typeof reply === "string" ? planFromModelText(reply) : parsePlanReply(reply);
    const orders = plan.orders.map((order) => ({ order, orderId: newId() }));
    const ids = new Map(orders.map(({ order, orderId }) => [order.key, orderId]));
    const defaults = this.options.orderDefaults ?? DEFAULT_ORDER_DEFAULTS;
    const routed = await this.routedDefaults(plan.orders, defaults);
    const events = orders.map(({ order, orderId }) => ({
      type: "ORDER_CREATED" as const,
      ...this.ids(run.theater_id, runId),
      order_id: orderId,
      payload: plannedOrderOf(order, ids, routed.get(order.key) ?? defaults),
    }));
    // Expecting the run's version makes planning once a ledger rule: a concurrent plan loses the race.
    await this.store.appendBatch(events, { expect: [{ kind: "run", id: runId, version: run.version }] });
    return {
      run_id: runId,
      order_ids: events.map((e) => e.order_id),
      dependencies: events
        .filter((e) => e.payload.depends_on.length > 0)
        .map((e) => ({ order_id: e.order_id, depends_on: e.payload.depends_on })),
    };
  }

  /** POST /runs/{id}/dispatch: enqueues the orders whose dependencies are integrated; idempotent. */
  async dispatch(runId: string): Promise<DispatchData> {
    return dispatchRun(
      {
        store: this.store,
        queue: this.options.queue,
        garrisonId: this.garrisonId,
        theaterWorktreePath: this.options.theaterWorktreePath,
      },
      await this.openRun(runId),
    );
  }

  /** POST /runs/{id}/synthesize: concludes the run once its orders are over; a concluded run answers again. */
  async synthesize(runId: string): Promise<SynthesizeData> {
    const run = await this.findRun(runId);
    if (run.status === "COMPLETE" || run.status === "FAILED") {
      const view = await readRunView(this.store, runId);
      return { run_id: runId, status: run.status, reply: run.summary ?? "", artifacts: view.artifacts };
    }
    if (run.status !== "OPEN")
      throw new ConflictError(`run ${runId} is ${run.status}: there is nothing to synthesize`);
    const { synthesizer, readAar } = this.options;
    const ctx = { store: this.store, garrisonId: this.garrisonId, synthesizer, readAar };
    return synthesizeRun(ctx, run, await this.userOf(runId));
  }

  /** Cancels an OPEN run and every order of it that is not over, in one batch; cancelling twice is a no-op. */
  cancel(runId: string, reason: string): Promise<{ run_id: string; cancelled: string[] }> {
    return cancelRun(this.store, this.garrisonId, runId, reason);
  }

  /** GET /runs/{id}: the run snapshot with each order's plan key, state and AAR, and every artifact pointer. */
  runStatus(runId: string): Promise<RunView> {
    return readRunView(this.store, runId);
  }

  /** GET /orders/{id}: the order snapshot (AAR and artifact pointers included) and the order as planned. */
  orderStatus(orderId: string): Promise<OrderView> {
    return readOrderView(this.store, orderId);
  }

  /** Defaults with the router's profile, by plan key, for the orders whose plan names no profile. */
  private async routedDefaults(orders: PlannedOrderReply[], defaults: OrderDefaults) {
    const routed = new Map<string, OrderDefaults>();
    const router = this.options.profileRouter;
    for (const order of router ? orders : []) {
      if (order.profile?.name !== undefined) continue;
      const profile = await router?.profileFor(order.type);
      if (profile) routed.set(order.key, { ...defaults, profile });
    }
    return routed;
  }

  private ids(theaterId: string, runId: string) {
    return { garrison_id: this.garrisonId, theater_id: theaterId, run_id: runId };
  }

  private async findRun(runId: string): Promise<RunSnapshot> {
    const run = await this.store.getRun(runId);
    if (!run) throw new NotFoundError("run", runId);
    return run;
  }

  private async openRun(runId: string): Promise<RunSnapshot> {
    const run = await this.findRun(runId);
    if (run.status !== "OPEN")
      throw new ConflictError(`run ${runId} is ${run.status}: only an OPEN run is planned or dispatched`);
    return run;
  }

  /** The user who created the run, from RUN_CREATED's payload (null when another writer left it out). */
  private async userOf(runId: string): Promise<string | null> {
    const [created] = await this.store.read({ runId, types: ["RUN_CREATED"], limit: 1 });
    const userId = created?.payload.user_id;
    return typeof userId === "string" && userId.length > 0 ? userId : null;
  }
}
