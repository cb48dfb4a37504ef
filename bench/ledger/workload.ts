import type { LedgerEventInput } from "../../src/contracts/index.js";

/**
 * A realistic ledger workload: runs of ten orders, each order created, enqueued, claimed, then reported by its
 * worker (started, artifact, AAR, completed), and the run completed. Every event carries its own event_id, as
 * writers that retry do, so appends pay for the idempotency lookup too. `prefix` keeps ids unique per phase.
 */
export function* lifecycleEvents(prefix: string, ordersPerRun = 10): Generator<LedgerEventInput> {
  let n = 0;
  const base = (type: LedgerEventInput["type"], run: string, order: string | null = null) => ({
    event_id: `${prefix}-${++n}`,
    type,
    garrison_id: "local",
    theater_id: "bench",
    run_id: run,
    order_id: order,
    unit_id: type === "ORDER_CLAIMED" || type === "ORDER_STARTED" ? "assault_bench" : null,
    payload: {},
  });
  for (let r = 0; ; r++) {
    const run = `${prefix}-run-${r}`;
    yield { ...base("RUN_CREATED", run), payload: { objective: "Summarize the input into 5 bullets" } };
    for (let o = 0; o < ordersPerRun; o++) {
      const order = `${run}-o${o}`;
      yield base("ORDER_CREATED", run, order);
      yield base("ORDER_ENQUEUED", run, order);
      yield base("ORDER_CLAIMED", run, order);
      yield { ...base("ORDER_STARTED", run, order), payload: { attempt: 1 } };
      yield {
        ...base("ARTIFACT_WRITTEN", run, order),
        payload: { path: "outputs/model_output.txt", type: "text/plain" },
      };
      yield { ...base("AAR_WRITTEN", run, order), payload: { path: "aar.json" } };
      yield base("ORDER_COMPLETED", run, order);
    }
    yield { ...base("RUN_COMPLETED", run), payload: { summary: "Five bullets" } };
  }
}

export function take<T>(source: Iterator<T>, count: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < count; i++) {
    const next = source.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}
