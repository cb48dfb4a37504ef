import { createEffect, For, on, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { localDateTime, relativeTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { hrefOf } from "../shared/route.js";
import { RunDetailPanel } from "./run-detail.js";
import { toneOf } from "./run-form.js";
import { RunStartForm } from "./run-start-form.js";
import { createRunsController } from "./runs-controller.js";

/** Command's runs: start one, see each with its status, open one to follow its orders live. */
export default function RunsView(props: { api: ApiClient; runId: string }) {
  const runs = createRunsController(props.api);
  const { state, dispatch } = runs;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => runs.dispose());
  createEffect(
    on(
      () => props.runId,
      (id) => void dispatch(id ? { type: "open", id } : { type: "close" }),
    ),
  );
  const started = async () => {
    await dispatch({ type: "submit" });
    if (runs.open.id && runs.open.id !== props.runId) location.hash = hrefOf("runs", runs.open.id);
  };
  return (
    <main class="runs-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Runs</h1>
      </header>
      <Notice message={state.message} />
      <Show when={props.runId} fallback={<RunStartForm runs={runs} onStart={started} />}>
        <RunDetailPanel runs={runs} />
      </Show>
      <Show when={!state.loading && state.runs.length === 0}>
        <p class="muted">
          No runs yet. A run takes an objective, plans it into orders and works each in its own branch.
        </p>
      </Show>
      <div class="table-wrap">
        <table class="runs cards">
          <caption class="visually-hidden">Your runs</caption>
          <thead>
            <tr>
              <th scope="col">Objective</th>
              <th scope="col">Theater</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            <For each={state.runs}>
              {(run) => (
                <tr data-run={run.run_id} aria-current={run.run_id === props.runId ? "true" : undefined}>
                  <th scope="row">
                    <a href={hrefOf("runs", run.run_id)}>{run.objective ?? run.run_id}</a>
                  </th>
                  <td data-label="Theater">{run.theater_id}</td>
                  <td data-label="Status">
                    <span class="status-pill" data-status={toneOf(run.status)}>
                      {run.status}
                    </span>
                  </td>
                  <td data-label="Started" title={localDateTime(run.created_at)}>
                    {relativeTime(run.created_at)}
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
    </main>
  );
}
