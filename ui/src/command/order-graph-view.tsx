import { For, Show } from "solid-js";
import type { OrderSnapshot, RunOrder } from "../api/command-endpoints.js";
import type { GateFailure } from "../runs/open-run.js";
import { layoutOrders, stateOf } from "./order-graph.js";

const [W, H, GAP_X, GAP_Y] = [168, 46, 56, 14];
const xOf = (layer: number) => layer * (W + GAP_X);
const yOf = (row: number) => row * (H + GAP_Y);

/** A run's orders as a graph: columns by dependency, an arrow from each order to the ones waiting on it. */
export function OrderGraph(props: {
  orders: RunOrder[];
  snapshots: Record<string, OrderSnapshot>;
  selected: string | null;
  onSelect(id: string): void;
}) {
  const graph = () => layoutOrders(props.orders);
  const at = (id: string) => graph().nodes.find((n) => n.order.order_id === id);
  return (
    <svg
      class="order-graph"
      width={Math.max(1, graph().layers) * (W + GAP_X) - GAP_X}
      height={Math.max(1, graph().rows) * (H + GAP_Y) - GAP_Y}
    >
      <title>Orders and their dependencies</title>
      <defs>
        <marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8" orient="auto">
          <path d="M0 0L8 4L0 8z" />
        </marker>
      </defs>
      <For each={graph().edges}>
        {(edge) => {
          const [from, to] = [at(edge.from), at(edge.to)];
          return (
            <Show when={from && to}>
              <line
                class="edge"
                data-from={edge.from}
                data-to={edge.to}
                x1={xOf(from?.layer ?? 0) + W}
                y1={yOf(from?.row ?? 0) + H / 2}
                x2={xOf(to?.layer ?? 0)}
                y2={yOf(to?.row ?? 0) + H / 2}
                marker-end="url(#arrow)"
              />
            </Show>
          );
        }}
      </For>
      <For each={graph().nodes}>
        {(node) => {
          const id = node.order.order_id;
          const state = () => stateOf(node.order, props.snapshots[id]);
          const select = () => props.onSelect(id);
          return (
            // biome-ignore lint/a11y/useSemanticElements: an SVG node cannot be a <button>; it acts as one
            <g
              class="node"
              role="button"
              tabindex="0"
              data-order={id}
              data-state={state()}
              aria-pressed={props.selected === id}
              aria-label={`${node.order.key ?? id}: ${state()}`}
              transform={`translate(${xOf(node.layer)} ${yOf(node.row)})`}
              onClick={select}
              onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && select()}
            >
              <rect width={W} height={H} rx="8" />
              <text x="10" y="19">
                {(node.order.key ?? id).slice(0, 22)}
              </text>
              <text class="state" x="10" y="36">
                {state()}
              </text>
            </g>
          );
        }}
      </For>
    </svg>
  );
}

/** The selected order: where it was worked, what it reported, what its gate said and where it was merged. */
export function OrderFacts(props: { order: RunOrder; snapshot?: OrderSnapshot; gate?: GateFailure }) {
  const snap = () => props.snapshot;
  return (
    <section class="card order-facts" aria-label={`Order ${props.order.key ?? props.order.order_id}`}>
      <h3>{props.order.objective ?? props.order.key ?? props.order.order_id}</h3>
      <dl class="facts">
        <dt>Order</dt>
        <dd>
          <code>{props.order.order_id}</code>
        </dd>
        <dt>Worktree</dt>
        <dd>
          {snap()?.worktree_path ?? "—"} {snap()?.worktree_state ? `(${snap()?.worktree_state})` : ""}
        </dd>
        <dt>Branch</dt>
        <dd>{snap()?.branch ?? "—"}</dd>
        <dt>After-action report</dt>
        <dd>{props.order.aar_summary ?? snap()?.aar_path ?? props.order.aar_path ?? "not written yet"}</dd>
        <dt>Gate output</dt>
        <dd>
          <Show
            when={props.gate}
            fallback={snap()?.integration_state === "INTEGRATED" ? "passed" : "not run yet"}
          >
            {(gate) => <pre>{`${gate().reason}\n${gate().output}`}</pre>}
          </Show>
        </dd>
        <dt>Merge commit</dt>
        <dd>{snap()?.commit_sha ? <code>{snap()?.commit_sha}</code> : "—"}</dd>
      </dl>
    </section>
  );
}
