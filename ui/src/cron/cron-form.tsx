import { createSignal, For, Show } from "solid-js";
import { localDateTime, userTimeZone } from "../shared/format.js";
import { type CronController, hasProblems } from "./cron-controller.js";
import { timeZones } from "./cron-schedule.js";

/**
 * Create or edit one job; the schedule is checked and its next five runs shown as you type, every invalid
 * field named, and Save offered only once nothing is wrong. Opening the form moves the focus into it.
 */
export function CronForm(props: { cron: CronController }) {
  const { state, dispatch } = props.cron;
  const zones = timeZones();
  // A field's own problem shows once it was typed in; the note by Save lists them all from the start.
  const [touched, setTouched] = createSignal<string[]>([]);
  const touch = (name: string) => !touched().includes(name) && setTouched([...touched(), name]);
  const field =
    (name: "id" | "schedule" | "timezone" | "agent" | "prompt") =>
    (e: { currentTarget: { value: string } }) => {
      touch(name);
      void dispatch({ type: "field", field: name, value: e.currentTarget.value });
    };
  const problems = () => props.cron.problems();
  const blocked = () => {
    const p = problems();
    return p !== null && hasProblems(p);
  };
  const focusFirst = (form: HTMLFormElement) =>
    queueMicrotask(() => {
      setTouched([]);
      form.scrollIntoView({ block: "nearest" });
      form.querySelector<HTMLElement>("input:not(:disabled), textarea")?.focus();
    });
  return (
    <Show when={state.form}>
      {(form) => (
        <form
          ref={focusFirst}
          class="card cron-form"
          aria-labelledby="cron-form-title"
          onSubmit={(e) => {
            e.preventDefault();
            void dispatch({ type: "save" });
          }}
          onKeyDown={(e) => e.key === "Escape" && void dispatch({ type: "cancel" })}
        >
          <h2 id="cron-form-title">{form().editing ? `Edit ${form().editing}` : "New job"}</h2>
          <label for="cron-id">Job id</label>
          <input
            id="cron-id"
            value={form().id}
            disabled={form().editing !== null}
            onInput={field("id")}
            placeholder="morning-brief"
            required
            aria-invalid={touched().includes("id") && problems()?.id !== undefined}
            aria-describedby="cron-id-check"
          />
          <p id="cron-id-check" class="field-error">
            {touched().includes("id") ? (problems()?.id ?? "") : ""}
          </p>
          <label for="cron-schedule">Schedule (cron expression)</label>
          <input
            id="cron-schedule"
            class="mono"
            value={form().schedule}
            onInput={field("schedule")}
            aria-describedby="cron-schedule-check"
            aria-invalid={props.cron.preview()?.ok === false}
            spellcheck={false}
          />
          <div id="cron-schedule-check" class="schedule-check" aria-live="polite">
            <Show
              when={props.cron.preview()?.ok && props.cron.preview()}
              fallback={
                <ul class="field-error field-errors" data-testid="schedule-error">
                  <For each={problems()?.schedule ?? []}>{(problem) => <li>{problem}</li>}</For>
                </ul>
              }
            >
              {(preview) => (
                <>
                  <p class="muted">Next runs, in your time zone ({userTimeZone()}):</p>
                  <ol class="next-runs">
                    <For each={preview().ok ? (preview() as { next: Date[] }).next : []}>
                      {(date) => <li>{localDateTime(date)}</li>}
                    </For>
                  </ol>
                </>
              )}
            </Show>
          </div>
          <label for="cron-timezone">Time zone the schedule is read in</label>
          <input id="cron-timezone" list="cron-zones" value={form().timezone} onInput={field("timezone")} />
          <datalist id="cron-zones">
            <For each={zones}>{(zone) => <option value={zone} />}</For>
          </datalist>
          <label for="cron-agent">Agent</label>
          <select id="cron-agent" value={form().agent} onChange={field("agent")}>
            <option value="">The brain's default agent</option>
            <For each={state.agents}>{(agent) => <option value={agent.name}>{agent.name}</option>}</For>
          </select>
          <label for="cron-prompt">Prompt</label>
          <textarea
            id="cron-prompt"
            rows={4}
            value={form().prompt}
            onInput={field("prompt")}
            aria-invalid={touched().includes("prompt") && problems()?.prompt !== undefined}
            aria-describedby="cron-prompt-check"
          />
          <p id="cron-prompt-check" class="field-error">
            {touched().includes("prompt") ? (problems()?.prompt ?? "") : ""}
          </p>
          <label class="check">
            <input
              type="checkbox"
              checked={form().enabled}
              onChange={(e) => void dispatch({ type: "enabled", value: e.currentTarget.checked })}
            />
            Enabled
          </label>
          <Show when={state.formError}>
            {(error) => (
              <div class="notice error" role="alert" data-testid="cron-save-error">
                <p>Not saved: {error().message}</p>
                <Show when={error().issues.length > 1}>
                  <ul>
                    <For each={error().issues}>{(issue) => <li>{issue}</li>}</For>
                  </ul>
                </Show>
              </div>
            )}
          </Show>
          <div class="form-actions">
            <button
              type="submit"
              class="primary"
              disabled={state.saving || blocked()}
              aria-describedby="cron-save-needs"
            >
              {state.saving ? "Saving…" : "Save job"}
            </button>
            <button type="button" class="ghost" onClick={() => void dispatch({ type: "cancel" })}>
              Cancel
            </button>
            <p id="cron-save-needs" class="muted save-needs">
              {blocked() ? `Save needs: ${needs(problems())}.` : ""}
            </p>
          </div>
        </form>
      )}
    </Show>
  );
}

/** The fields still to fix, named as their labels are. */
function needs(p: ReturnType<CronController["problems"]>): string {
  if (!p) return "";
  return [
    p.id !== undefined ? "a valid job id" : "",
    p.schedule.length > 0 ? "a valid schedule and time zone" : "",
    p.prompt !== undefined ? "a prompt" : "",
  ]
    .filter(Boolean)
    .join(", ");
}
