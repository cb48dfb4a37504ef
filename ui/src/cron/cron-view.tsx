import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { localDateTime, relativeTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { createCronController } from "./cron-controller.js";
import { CronForm } from "./cron-form.js";

/** The cron editor: every job of cron/jobs.toml with its state, and the form to add or change one. */
export default function CronView(props: { api: ApiClient }) {
  const cron = createCronController(props.api);
  const { state, dispatch } = cron;
  const [confirming, setConfirming] = createSignal<string | null>(null);
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => cron.dispose());
  return (
    <main class="cron-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Scheduled jobs</h1>
        <button type="button" class="primary" onClick={() => void dispatch({ type: "new" })}>
          New job
        </button>
      </header>
      <Show when={state.fileError}>
        <p class="notice error" role="alert">
          cron/jobs.toml does not load, so the last good schedule is running: {state.fileError}
        </p>
      </Show>
      <Notice message={state.message} />
      <CronForm cron={cron} />
      <Show when={!state.loading && state.jobs.length === 0}>
        <p class="muted">
          No jobs yet. A job runs a prompt as your agent on a schedule and writes the result to the day's log.
        </p>
      </Show>
      <div class="table-wrap">
        <table class="jobs cards">
          <caption class="visually-hidden">Cron jobs</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Schedule</th>
              <th scope="col">Status</th>
              <th scope="col">Next run</th>
              <th scope="col">Last run</th>
              <th scope="col">Last result</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <For each={state.jobs}>
              {(job) => (
                <tr data-job={job.id}>
                  <th scope="row">
                    {job.id}
                    <span class="muted job-agent">{job.agent ?? "default agent"}</span>
                  </th>
                  <td data-label="Schedule">
                    <code>{job.schedule}</code>
                    <span class="muted job-zone">{job.timezone}</span>
                  </td>
                  <td data-label="Status">
                    <span class="status-pill" data-status={job.status}>
                      {job.status}
                    </span>
                  </td>
                  <td data-field="next-run" data-label="Next run">
                    {job.enabled ? localDateTime(job.next_run) : "—"}
                  </td>
                  <td data-label="Last run">{job.last_run ? relativeTime(job.last_run) : "never"}</td>
                  <td class="job-result" data-label="Last result">
                    {job.last_error ?? job.last_result_ref ?? "—"}
                  </td>
                  <td class="row-actions">
                    <button
                      type="button"
                      onClick={() => void dispatch({ type: "edit", id: job.id })}
                      aria-label={`Edit ${job.id}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      disabled={state.busy[job.id]}
                      onClick={() => void dispatch({ type: "toggle", id: job.id })}
                    >
                      {job.enabled ? "Disable" : "Enable"}
                    </button>
                    <button
                      type="button"
                      disabled={state.busy[job.id]}
                      onClick={() => void dispatch({ type: "run", id: job.id })}
                    >
                      Run now
                    </button>
                    <Show
                      when={confirming() === job.id}
                      fallback={
                        <button
                          type="button"
                          class="danger"
                          disabled={state.busy[job.id]}
                          onClick={() => setConfirming(job.id)}
                          aria-label={`Remove ${job.id}`}
                        >
                          Remove
                        </button>
                      }
                    >
                      <button
                        type="button"
                        class="danger"
                        onClick={() => {
                          setConfirming(null);
                          void dispatch({ type: "remove", id: job.id });
                        }}
                      >
                        Remove {job.id} from jobs.toml
                      </button>
                      <button type="button" class="ghost" onClick={() => setConfirming(null)}>
                        Keep
                      </button>
                    </Show>
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
