import { For, Show } from "solid-js";
import { Notice } from "../shared/notice.js";
import type { PolicyController } from "./policy-controller.js";

/** The routing policy learning keeps: its versions, the one shown with its routes and diff, and an admin's moves. */
export function PolicyPanel(props: { policy: PolicyController; admin: boolean }) {
  const { state, dispatch } = props.policy;
  const shown = () => state.shown?.policy;
  return (
    <section class="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Routing policy</h2>
      <Notice message={state.message} />
      <Show when={state.versions?.versions.length} fallback={<p class="muted">No policy learned yet.</p>}>
        <p>
          Active: version {state.versions?.active_version}
          {state.versions?.pinned ? " (pinned)" : ""}
          <Show when={props.admin && state.versions?.pinned}>
            {" "}
            <button type="button" disabled={state.busy} onClick={() => void dispatch({ type: "unpin" })}>
              Unpin
            </button>
          </Show>
        </p>
        <ol class="policy-versions">
          <For each={state.versions?.versions}>
            {(v) => (
              <li data-version={v.version} aria-current={v.active ? "true" : undefined}>
                <button
                  type="button"
                  class="ghost"
                  onClick={() => void dispatch({ type: "show", version: v.version })}
                >
                  Version {v.version}
                </button>{" "}
                {v.routes} routes, {v.changes} changes{v.active ? ", active" : ""}
                <Show when={props.admin}>
                  {" "}
                  <button
                    type="button"
                    disabled={state.busy}
                    onClick={() => void dispatch({ type: "pin", version: v.version })}
                  >
                    Pin
                  </button>
                  <Show when={!v.active}>
                    <button
                      type="button"
                      disabled={state.busy}
                      onClick={() => void dispatch({ type: "rollback", version: v.version })}
                    >
                      Roll back to
                    </button>
                  </Show>
                </Show>
              </li>
            )}
          </For>
        </ol>
        <Show when={shown()}>
          {(p) => (
            <div data-shown-version={p().version}>
              <h3>Version {p().version}</h3>
              <ul>
                <For each={p().routes}>
                  {(r) => (
                    <li>
                      {r.task_type} → {r.profile.name} ({r.reason})
                    </li>
                  )}
                </For>
              </ul>
              <h3>Diff against version {p().diff.previous_version ?? "none"}</h3>
              <ul class="policy-diff">
                <For each={p().diff.changes} fallback={<li>no route changed</li>}>
                  {(c) => (
                    <li>
                      {c.task_type}: {c.from ?? "none"} → {c.to ?? "none"}
                    </li>
                  )}
                </For>
              </ul>
            </div>
          )}
        </Show>
      </Show>
    </section>
  );
}
