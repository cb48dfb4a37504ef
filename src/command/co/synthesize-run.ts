import {
  type AarFile,
  type ArtifactPointer,
  aarFileSchema,
  type LedgerEventInput,
  type SynthesizeData,
} from "../../contracts/index.js";
import { ConflictError, InvalidInputError } from "../../core/index.js";
import type { EventStore, OrderSnapshot, RunSnapshot } from "../../ledger/index.js";
import type { AarReader, OrderOutcome, Synthesizer } from "./co-services.js";
import { readPlannedOrders } from "./planned-order.js";
import { orderSnapshots } from "./run-orders.js";
import { composeReply, outcomeOf, standingsOf } from "./synthesis.js";

export interface SynthesisContext {
  store: EventStore;
  garrisonId: string;
  synthesizer?: Synthesizer | undefined;
  readAar?: AarReader | undefined;
}

/**
 * Concludes an OPEN run whose orders are all over (seed 000 §3.2 "Reads artifacts/AARs and produces final
 * reply"): reads each order's AAR, has the reply written, and appends, as one batch, ORDER_CANCELLED for orders
 * stranded behind a failed dependency and then RUN_COMPLETED (every order integrated) or RUN_FAILED (with each
 * failed order's reason). The reply is the run's `summary`, the key GET /runs reads. Refuses, appending nothing,
 * while any order may still move.
 */
export async function synthesizeRun(
  ctx: SynthesisContext,
  run: RunSnapshot,
  userId: string | null,
): Promise<SynthesizeData> {
  if (run.orders.length === 0) throw new ConflictError(`run ${run.run_id} has no orders: plan it first`);
  const planned = await readPlannedOrders(ctx.store, run.run_id);
  const snapshots = await orderSnapshots(ctx.store, run);
  const standings = await standingsOf(ctx.store, run.run_id, snapshots, planned);
  const pending = [...standings].filter(([, s]) => s.kind === "pending");
  if (pending.length > 0) {
    const list = pending.map(
      ([id, s]) => `${planned.get(id)?.key ?? id} (${s.kind === "pending" ? s.state : ""})`,
    );
    throw new ConflictError(
      `run ${run.run_id} is not ready to synthesize: still in progress: ${list.join(", ")}`,
    );
  }

  const orders: OrderOutcome[] = [];
  for (const { order_id } of run.orders) {
    const standing = standings.get(order_id);
    const snapshot = snapshots.get(order_id);
    if (!standing || !snapshot) continue;
    const outcome = outcomeOf(order_id, planned.get(order_id), standing);
    const aar = await readCheckedAar(ctx.readAar, snapshot);
    orders.push(aar ? { ...outcome, aar } : outcome);
  }
  const status = orders.every((o) => o.outcome === "integrated") ? "COMPLETE" : "FAILED";
  const objective = run.objective ?? "(no objective recorded)";
  const request = {
    runId: run.run_id,
    theaterId: run.theater_id,
    userId,
    objective,
    status,
    orders,
  } as const;
  const reply = ctx.synthesizer ? await ctx.synthesizer.synthesize(request) : composeReply(request);
  if (typeof reply !== "string" || !/\S/.test(reply))
    throw new InvalidInputError("synthesizer reply", "must be a non-empty string");

  const artifacts = artifactsOf(orders, snapshots);
  const ids = { garrison_id: ctx.garrisonId, theater_id: run.theater_id, run_id: run.run_id };
  const events: LedgerEventInput[] = [...standings]
    .filter(([, s]) => s.kind === "stranded")
    .map(([orderId, s]) => ({
      ...ids,
      type: "ORDER_CANCELLED",
      order_id: orderId,
      payload: { reason: s.kind === "stranded" ? s.reason : "stranded" },
    }));
  const failures = orders
    .filter((o) => o.outcome !== "integrated")
    .map((o) => ({ order_id: o.order_id, key: o.key, outcome: o.outcome, reason: o.reason ?? o.outcome }));
  events.push(
    status === "COMPLETE"
      ? { ...ids, type: "RUN_COMPLETED", payload: { summary: reply, artifacts } }
      : { ...ids, type: "RUN_FAILED", payload: { summary: reply, reasons: failures, artifacts } },
  );
  await ctx.store.appendBatch(events, { expect: [{ kind: "run", id: run.run_id, version: run.version }] });
  return { run_id: run.run_id, status, reply, artifacts };
}

/**
 * The AAR, if the reader found one that is a well-formed AAR of this very order. Worktrees are guest-written: an
 * AAR that is missing, unreadable or malformed leaves the order reported without it rather than holding the run
 * open.
 */
async function readCheckedAar(
  readAar: AarReader | undefined,
  order: OrderSnapshot,
): Promise<AarFile | undefined> {
  if (!readAar || order.aar_path === null) return undefined;
  let found: unknown;
  try {
    found = await readAar(order);
  } catch {
    found = undefined;
  }
  const parsed = aarFileSchema.safeParse(found);
  return parsed.success && parsed.data.order_id === order.order_id ? parsed.data : undefined;
}

/** What the integrated orders produced: their AARs' artifacts, or the ARTIFACT_WRITTEN pointers without an AAR. */
export function artifactsOf(
  orders: readonly OrderOutcome[],
  snapshots: ReadonlyMap<string, OrderSnapshot>,
): ArtifactPointer[] {
  return orders
    .filter((o) => o.outcome === "integrated")
    .flatMap((o) =>
      (o.aar?.artifacts ?? snapshots.get(o.order_id)?.artifacts ?? []).map((a) => ({
        order_id: o.order_id,
        ...a,
      })),
    );
}
