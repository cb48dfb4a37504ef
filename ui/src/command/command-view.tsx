import { createEffect, For, on, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { toneOf } from "../runs/run-form.js";
import { Notice } from "../shared/notice.js";
import { hrefOf } from "../shared/route.js";
import { createCommandController } from "./command-controller.js";
import { OrderFacts, OrderGraph } from "./order-graph-view.js";
import { createOversightController } from "./oversight-controller.js";
import { OversightPanel } from "./oversight-panel.js";
import { createPolicyController } from "./policy-controller.js";
import { PolicyPanel } from "./policy-panel.js";
import "./command.css";

/** How often escalations and patrol health are read again while the screen is open. */
const OVERSIGHT_REFRESH_MS = 15_000;

/** Command at a glance: a run's orders as a live graph, escalations, the watchers' health, the routing policy. */
export default function CommandView(props: { api: ApiClient; runId: string; admin: boolean }) {
  const command = createCommandController(props.api);
  const oversight = createOversightController(props.api);
  const policy = createPolicyController(props.api);
  const { state, open, dispatch } = command;
  onMount(() => {
    void dispatch({ type: "start" });
    void oversight.load();
    void policy.dispatch({ type: "load" });
    const timer = setInterval(() => void oversight.load(), OVERSIGHT_REFRESH_MS);
    onCleanup(() => clearInterval(timer));
  });
  onCleanup(() => {
    command.dispose();
    oversight.dispose();
    policy.dispose();
  });
  createEffect(
    on(
      () => props.runId,
      (id) => void dispatch(id ? { type: "open", id } : { type: "close" }),
    ),
  );
  const selected = () => open.run?.orders.find((o) => o.order_id === state.selected);
  return (
    <main class="runs-screen command-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Command</h1>
      </header>
      <Notice message={state.message} />
      <nav aria-label="Runs" class="command-runs">
        <For each={state.runs} fallback={<p class="muted">No runs yet.</p>}>
          {(run) => (
            <a
              href={hrefOf("command", run.run_id)}
              aria-current={run.run_id === props.runId ? "page" : undefined}
            >
              {run.objective ?? run.run_id}{" "}
              <span class="status-pill" data-status={toneOf(run.status)}>
                {run.status}
              </span>
            </a>
          )}
        </For>
      </nav>
      <Show when={props.runId}>
        <section class="card" aria-labelledby="graph-title">
          <h2 id="graph-title">{open.run?.objective ?? props.runId}</h2>
          <p class="live muted" role="status" data-live={open.live.state}>
            {open.error ?? open.live.text}
          </p>
          <figure class="graph-wrap" aria-label="Orders and their dependencies">
            <OrderGraph
              orders={open.run?.orders ?? []}
              snapshots={open.orders}
              selected={state.selected}
              onSelect={(orderId) => void dispatch({ type: "select", orderId })}
            />
          </figure>
          <Show when={selected()}>
            {(o) => (
              <OrderFacts order={o()} snapshot={open.orders[o().order_id]} gate={open.gates[o().order_id]} />
            )}
          </Show>
        </section>
      </Show>
      <OversightPanel oversight={oversight} />
      <PolicyPanel policy={policy} admin={props.admin} />
    </main>
  );
}
