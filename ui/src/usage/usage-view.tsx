import { For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { BudgetStatus } from "../api/endpoints.js";
import { localDateTime } from "../shared/format.js";
import { SpendChart } from "./spend-chart.js";
import { usd } from "./spend-days.js";
import { CHART_DAYS, createUsageController } from "./usage-controller.js";

const PERIODS: Record<BudgetStatus["period"], string> = {
  day: "today",
  month: "this month",
  total: "in total",
};

/** One cap against its window: spent and held by calls in flight, as a meter and in words. */
function CapMeter(props: { status: BudgetStatus }) {
  const level = () => (props.status.percent >= 100 ? "over" : props.status.percent >= 80 ? "near" : "ok");
  return (
    <li class="cap" data-party={props.status.party} data-period={props.status.period} data-level={level()}>
      <div class="cap-head">
        <span class="cap-who">{props.status.description}</span>
        <span class="cap-figures">
          {usd(props.status.spent_usd)} of {usd(props.status.limit_usd)} {PERIODS[props.status.period]}
        </span>
      </div>
      <meter
        min={0}
        max={Math.max(props.status.limit_usd, 1e-9)}
        low={props.status.limit_usd * 0.5}
        high={props.status.limit_usd * 0.8}
        optimum={0}
        value={Math.min(props.status.spent_usd + props.status.reserved_usd, props.status.limit_usd)}
        aria-label={`${props.status.description} ${PERIODS[props.status.period]}`}
      />
      <span class="cap-note muted">
        {Math.round(props.status.percent)} %
        {props.status.reserved_usd > 0
          ? ` · ${usd(props.status.reserved_usd)} held by calls running now`
          : ""}
        {` · ${props.status.window.replace(/^\w+:/, "")} (${props.status.time_zone})`}
      </span>
    </li>
  );
}

/** Usage: what the agent's model calls cost, day by day against the cap, and what each cap has left. */
export default function UsageView(props: { api: ApiClient; me: string; admin: boolean }) {
  const usage = createUsageController(props.api);
  const { state, dispatch } = usage;
  onMount(() => void dispatch({ type: "start", admin: props.admin }));
  onCleanup(() => usage.dispose());
  // The cap drawn on the chart: the daily cap of whoever's spend the bars show (the host's for everyone).
  const capParty = () => (state.user ? `user:${state.user}` : props.admin ? "host" : `user:${props.me}`);
  const dailyCap = () =>
    state.overview?.status.find((s) => s.party === capParty() && s.period === "day")?.limit_usd;
  const total = () => state.days.reduce((sum, d) => sum + d.usd, 0);
  return (
    <main class="usage-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Usage</h1>
        <Show when={props.admin}>
          <div class="filter">
            <label for="usage-user">Whose</label>
            <select
              id="usage-user"
              value={state.user}
              onChange={(e) => void dispatch({ type: "user", user: e.currentTarget.value })}
            >
              <option value="">Everyone</option>
              <For each={state.users}>{(u) => <option value={u}>{u}</option>}</For>
            </select>
          </div>
        </Show>
      </header>
      <Show when={state.error}>
        <p class="notice error" role="alert">
          {state.error}
        </p>
      </Show>
      <section aria-labelledby="spend-title">
        <h2 id="spend-title">
          Spend per day{" "}
          <span class="muted">
            (last {CHART_DAYS} days, {usd(total())})
          </span>
        </h2>
        <Show when={state.overview} fallback={<p class="muted">Loading…</p>}>
          <SpendChart days={state.days} cap={dailyCap()} />
          <Show when={dailyCap() === undefined}>
            <p class="muted">
              No daily cap is set{state.user || !props.admin ? " for this user" : " for the host"}.
            </p>
          </Show>
        </Show>
      </section>
      <section aria-labelledby="caps-title">
        <h2 id="caps-title">Caps</h2>
        <Show
          when={(state.overview?.status.length ?? 0) > 0}
          fallback={
            <p class="muted">
              No caps: model calls are not limited. An admin sets them with `ironclaw budget set`.
            </p>
          }
        >
          <ul class="caps">
            <For each={state.overview?.status ?? []}>{(status) => <CapMeter status={status} />}</For>
          </ul>
        </Show>
      </section>
      <section aria-labelledby="models-title">
        <h2 id="models-title">By model</h2>
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">Spend by model over the last {CHART_DAYS} days</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Calls
                </th>
                <th scope="col" class="num">
                  Refused
                </th>
                <th scope="col" class="num">
                  Tokens in (cached)
                </th>
                <th scope="col" class="num">
                  Tokens out
                </th>
                <th scope="col" class="num">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              <For
                each={state.byModel?.rows ?? []}
                fallback={
                  <tr>
                    <td colspan="6" class="muted">
                      No model calls in these days.
                    </td>
                  </tr>
                }
              >
                {(row) => (
                  <tr>
                    <th scope="row">{row.key}</th>
                    <td class="num" data-label="Calls">
                      {row.calls}
                    </td>
                    <td class="num" data-label="Refused">
                      {row.refused}
                    </td>
                    <td class="num" data-label="Tokens in (cached)">
                      {row.input_tokens} ({row.cached_input_tokens})
                    </td>
                    <td class="num" data-label="Tokens out">
                      {row.output_tokens}
                    </td>
                    <td class="num" data-label="Cost">
                      {usd(row.cost_usd)}
                      {row.estimated ? ` (${row.estimated} estimated)` : ""}
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">Recent alerts</h2>
        <Show when={state.alerts.length > 0} fallback={<p class="muted">No budget alerts.</p>}>
          <ul class="budget-alerts">
            <For each={state.alerts}>
              {(alert) => (
                <li data-level={alert.level}>
                  <time datetime={alert.at}>{localDateTime(alert.at)}</time> {alert.message}
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>
    </main>
  );
}
