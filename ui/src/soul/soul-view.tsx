import { For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { relativeTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { sideBySide } from "./side-by-side.js";
import { createSoulController } from "./soul-controller.js";

/**
 * Soul guard approvals: what changed in a prompt file (soul.md, identity.md, an instructions or persona file)
 * since a person last approved it, why it was held, and the decision.
 */
export default function SoulView(props: { api: ApiClient }) {
  const soul = createSoulController(props.api);
  const { state, dispatch } = soul;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => soul.dispose());
  return (
    <main class="soul-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Soul guard</h1>
      </header>
      <Notice message={state.message} />
      <Show when={!state.loading && state.pending.length === 0}>
        <p class="muted">
          No changes are waiting. Your agent's soul, identity and instructions are as approved.
        </p>
      </Show>
      <Show when={state.pending.length > 0}>
        <ul class="pending-list" aria-label="Held changes">
          <For each={state.pending}>
            {(change) => (
              <li>
                <button
                  type="button"
                  aria-current={state.selected?.change.id === change.id ? "true" : undefined}
                  onClick={() => void dispatch({ type: "select", id: change.id })}
                >
                  {change.path} · {change.userId} · {relativeTime(change.createdAt)}
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show when={state.selected}>
        {(detail) => (
          <section class="soul-change" aria-label="The held change">
            <h2>Why the change to {detail().change.path} was held</h2>
            <ul class="reasons">
              <For each={detail().change.reasons}>{(reason) => <li>{reason}</li>}</For>
            </ul>
            <div class="diff-wrap">
              <table class="diff">
                <caption class="visually-hidden">
                  {detail().change.path}: the version last approved, and the agent's version now
                </caption>
                <thead>
                  <tr>
                    <th scope="col">
                      {detail().change.before === null
                        ? `${detail().change.path} (no approved version)`
                        : `Approved ${detail().change.path}`}
                    </th>
                    <th scope="col">
                      {detail().change.after === null
                        ? `${detail().change.path} (deleted)`
                        : `Proposed ${detail().change.path}`}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  <For each={sideBySide(detail().diff)}>
                    {(row) => (
                      <tr>
                        <td
                          class="diff-cell"
                          classList={{ removed: row.left?.changed === true, absent: row.left === null }}
                        >
                          {row.left?.text ?? ""}
                        </td>
                        <td
                          class="diff-cell"
                          classList={{ added: row.right?.changed === true, absent: row.right === null }}
                        >
                          {row.right?.text ?? ""}
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
            <div class="form-actions">
              <button
                type="button"
                class="primary"
                disabled={state.deciding}
                onClick={() => void dispatch({ type: "decide", id: detail().change.id, verdict: "approve" })}
              >
                Approve change
              </button>
              <button
                type="button"
                class="danger"
                disabled={state.deciding}
                onClick={() => void dispatch({ type: "decide", id: detail().change.id, verdict: "reject" })}
              >
                Reject and restore
              </button>
            </div>
          </section>
        )}
      </Show>
    </main>
  );
}
