import { createSignal, For, Show } from "solid-js";
import type { RunField } from "./run-form.js";
import type { RunsController } from "./runs-controller.js";

/** A field's problem, placed under it and tied to it (aria-describedby), and announced when it appears. */
function Problem(props: { id: string; text: string | undefined }) {
  return (
    <Show when={props.text}>
      <p class="field-error" id={props.id} role="alert">
        {props.text}
      </p>
    </Show>
  );
}

/** Starting a run: a theater and an objective; a theater can be created here when there is none yet. */
export function RunStartForm(props: { runs: RunsController; onStart(): void }) {
  const { state, dispatch } = props.runs;
  const [adding, setAdding] = createSignal(false);
  const startProblem = (f: RunField) => state.startRefusal?.fields[f];
  const theaterProblem = (f: RunField) => state.theaterRefusal?.fields[f];
  const set = (field: RunField) => (e: { currentTarget: { value: string } }) =>
    void dispatch({ type: "field", field, value: e.currentTarget.value });
  const noTheater = () => !state.loading && state.theaters.length === 0;
  return (
    <section class="run-start" aria-labelledby="run-start-title">
      <h2 id="run-start-title">Start a run</h2>
      <Show when={noTheater() || adding()}>
        <form
          class="card cron-form"
          aria-label="New theater"
          onSubmit={(e) => {
            e.preventDefault();
            void dispatch({ type: "create-theater" }).then(() => setAdding(state.theaterRefusal !== null));
          }}
        >
          <p class="muted">
            {noTheater()
              ? "A run works in a theater, a git repository of its own. Create the first one:"
              : ""}
          </p>
          <Show when={state.theaterRefusal?.message}>
            <p class="notice error" role="alert">
              {state.theaterRefusal?.message}
            </p>
          </Show>
          <label for="theater-id">Theater id</label>
          <input
            id="theater-id"
            aria-invalid={theaterProblem("newTheater") ? "true" : undefined}
            aria-describedby={theaterProblem("newTheater") ? "theater-id-problem" : undefined}
            value={state.form.newTheater}
            onInput={set("newTheater")}
          />
          <Problem id="theater-id-problem" text={theaterProblem("newTheater")} />
          <label for="theater-repo">Repository path (optional)</label>
          <input
            id="theater-repo"
            aria-invalid={theaterProblem("repoPath") ? "true" : undefined}
            aria-describedby={theaterProblem("repoPath") ? "theater-repo-problem" : undefined}
            value={state.form.repoPath}
            placeholder="the warden's theaters folder"
            onInput={set("repoPath")}
          />
          <Problem id="theater-repo-problem" text={theaterProblem("repoPath")} />
          <button type="submit" disabled={state.busy === "theater"}>
            Create theater
          </button>
        </form>
      </Show>
      <form
        class="card cron-form"
        aria-label="Start a run"
        onSubmit={(e) => {
          e.preventDefault();
          props.onStart();
        }}
      >
        <Show when={state.startRefusal?.message}>
          <p class="notice error" role="alert">
            {state.startRefusal?.message}
          </p>
        </Show>
        <label for="run-theater">Theater</label>
        <select
          id="run-theater"
          aria-invalid={startProblem("theater") ? "true" : undefined}
          aria-describedby={startProblem("theater") ? "run-theater-problem" : undefined}
          value={state.form.theater}
          onChange={set("theater")}
        >
          <option value="" disabled>
            Choose a theater
          </option>
          <For each={state.theaters}>{(t) => <option value={t.theater_id}>{t.theater_id}</option>}</For>
        </select>
        <Show when={!noTheater() && !adding()}>
          <button type="button" class="ghost" onClick={() => setAdding(true)}>
            New theater
          </button>
        </Show>
        <Problem id="run-theater-problem" text={startProblem("theater")} />
        <label for="run-objective">Objective</label>
        <textarea
          id="run-objective"
          aria-invalid={startProblem("objective") ? "true" : undefined}
          aria-describedby={startProblem("objective") ? "run-objective-problem" : undefined}
          rows={3}
          value={state.form.objective}
          onInput={set("objective")}
        />
        <Problem id="run-objective-problem" text={startProblem("objective")} />
        <button type="submit" class="primary" disabled={state.busy === "start"}>
          Start run
        </button>
      </form>
    </section>
  );
}
