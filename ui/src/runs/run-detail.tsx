import { createSignal, For, Show } from "solid-js";
import type { OrderSnapshot, RunOrder } from "../api/command-endpoints.js";
import { localDateTime } from "../shared/format.js";
import { hrefOf } from "../shared/route.js";
import type { GateFailure } from "./open-run.js";
import { isFinished, toneOf } from "./run-form.js";
import type { RunsController } from "./runs-controller.js";

function OrderCard(props: {
  order: RunOrder;
  snapshot?: OrderSnapshot | undefined;
  gate?: GateFailure | undefined;
}) {
  const o = () => props.order;
  const snap = () => props.snapshot;
  return (
    <li class="card" data-order={o().order_id}>
      <h3>
        {o().key ?? o().order_id}{" "}
        <span class="status-pill" data-status={toneOf(o().status)}>
          {o().status}
        </span>
      </h3>
      <Show when={o().objective}>
        <p>{o().objective}</p>
      </Show>
      <dl class="facts">
        <dt>Order</dt>
        <dd>
          <code>{o().order_id}</code>
        </dd>
        <dt>Branch</dt>
        <dd>{snap()?.branch ?? "—"}</dd>
        <dt>Worktree</dt>
        <dd>{snap()?.worktree_state ?? "—"}</dd>
        <dt>Integration</dt>
        <dd>{snap()?.integration_state ?? o().integration_state ?? "—"}</dd>
        <dt>Merge commit</dt>
        <dd>{snap()?.commit_sha ? <code>{snap()?.commit_sha}</code> : "—"}</dd>
        <dt>After-action report</dt>
        <dd>{o().aar_summary ?? snap()?.aar_path ?? o().aar_path ?? "not written yet"}</dd>
      </dl>
      <Show when={props.gate}>
        {(gate) => (
          <section class="notice error" aria-label={`Gate output of ${o().key ?? o().order_id}`}>
            <p>{gate().reason}</p>
            <Show when={gate().output}>
              <pre>{gate().output}</pre>
            </Show>
          </section>
        )}
      </Show>
    </li>
  );
}

/** One run: what it is after, where it stands, its orders as they change, and cancelling it. */
export function RunDetailPanel(props: { runs: RunsController }) {
  const { state, open, dispatch } = props.runs;
  const [confirming, setConfirming] = createSignal(false);
  return (
    <section class="run-detail" aria-labelledby="run-title">
      <a href={hrefOf("runs")}>← All runs</a>
      <Show when={open.error}>
        <p class="notice error" role="alert">
          {open.error}
        </p>
      </Show>
      <Show when={open.run} fallback={<p role="status">Loading run {open.id}…</p>}>
        {(run) => (
          <>
            <h2 id="run-title">{run().objective ?? run().run_id}</h2>
            <p class="live muted" role="status" data-live={open.live.state}>
              {open.live.text}
            </p>
            <dl class="facts">
              <dt>Run</dt>
              <dd>
                <code>{run().run_id}</code>
              </dd>
              <dt>Theater</dt>
              <dd>{run().theater_id}</dd>
              <dt>Status</dt>
              <dd>
                <span class="status-pill" data-status={toneOf(run().status)} data-field="run-status">
                  {run().status}
                </span>
              </dd>
              <dt>Started</dt>
              <dd>{localDateTime(run().created_at)}</dd>
              <Show when={run().finished_at}>
                <dt>Finished</dt>
                <dd>{localDateTime(run().finished_at)}</dd>
              </Show>
            </dl>
            <Show when={run().summary}>
              <h3>Reply</h3>
              <p class="notice info run-summary">{run().summary}</p>
            </Show>
            <Show when={!isFinished(run().status)}>
              <Show
                when={confirming()}
                fallback={
                  <button type="button" class="danger" onClick={() => setConfirming(true)}>
                    Cancel run
                  </button>
                }
              >
                <p role="alert">Cancel this run? Its orders stop and nothing more is merged.</p>
                <button
                  type="button"
                  class="danger"
                  disabled={state.busy === "cancel"}
                  onClick={() => {
                    setConfirming(false);
                    void dispatch({ type: "cancel-run" });
                  }}
                >
                  Yes, cancel the run
                </button>
                <button type="button" class="ghost" onClick={() => setConfirming(false)}>
                  Keep it running
                </button>
              </Show>
            </Show>
            <h3>Orders</h3>
            <Show
              when={run().orders.length > 0}
              fallback={
                <p class="muted">
                  {isFinished(run().status)
                    ? "No orders: the run ended before it was planned."
                    : "No orders yet: the run is being planned."}
                </p>
              }
            >
              <ol class="orders">
                <For each={run().orders}>
                  {(order) => (
                    <OrderCard
                      order={order}
                      snapshot={open.orders[order.order_id]}
                      gate={open.gates[order.order_id]}
                    />
                  )}
                </For>
              </ol>
            </Show>
          </>
        )}
      </Show>
    </section>
  );
}
