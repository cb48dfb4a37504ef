import { For, Show } from "solid-js";
import type { BrainHistoryEntry } from "../api/endpoints.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import type { HistoryController } from "./history-controller.js";

const shortId = (id: string) => id.slice(0, 8);
const label = (e: BrainHistoryEntry) => `${localDateTime(e.at)} · ${shortId(e.node.node_id)}`;

/**
 * The brain's history beside the editor: each state with when, why and which files it changed; a chosen state's
 * changes against its parent or another state; and restore, confirmed first, which makes a new state.
 */
export function HistoryPanel(props: { history: HistoryController }) {
  const { state, dispatch } = props.history;
  return (
    <section class="brain-history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <Notice message={state.message} />
      <Show when={!state.loading && state.entries.length === 0}>
        <p class="muted">No states yet: each change of the brain (a turn, an edit) becomes one.</p>
      </Show>
      <ol class="history-list">
        <For each={state.entries}>
          {(entry) => (
            <li
              class="history-node"
              data-node={entry.node.node_id}
              aria-current={state.selected === entry.node.node_id}
            >
              <button
                type="button"
                class="hit-source"
                onClick={() => void dispatch({ type: "select", nodeId: entry.node.node_id })}
              >
                <span class="hit-path">{label(entry)}</span>
                <Show when={entry.redacted}>
                  <span
                    class="status-pill"
                    data-status="suspended"
                    title="A forget removed text from this state"
                  >
                    redacted
                  </span>
                </Show>
              </button>
              <p class="hit-headings">{entry.cause}</p>
              <p class="muted history-files">
                {entry.files.length === 0 ? "no file changed" : entry.files.join(", ")}
              </p>
              <Show when={state.selected === entry.node.node_id}>
                <Changes history={props.history} entry={entry} />
              </Show>
            </li>
          )}
        </For>
      </ol>
    </section>
  );
}

/** The chosen state's diff, what to compare it with, and its restore. */
function Changes(props: { history: HistoryController; entry: BrainHistoryEntry }) {
  const { state, dispatch } = props.history;
  const id = () => props.entry.node.node_id;
  return (
    <div class="history-changes">
      <label>
        Compare with{" "}
        <select
          value={state.against ?? ""}
          onChange={(e) => void dispatch({ type: "compare", against: e.currentTarget.value || null })}
        >
          <option value="">
            {props.entry.node.parent_node_id ? "its parent" : "nothing (the first state)"}
          </option>
          <For each={state.entries.filter((e) => e.node.node_id !== id())}>
            {(other) => <option value={other.node.node_id}>{label(other)}</option>}
          </For>
        </select>
      </label>
      <Show when={state.diff} fallback={<p class="muted">Loading the changes…</p>}>
        {(diff) => (
          <>
            <ul class="history-paths">
              <For each={diff().added}>{(path) => <li data-change="added">added {path}</li>}</For>
              <For each={diff().changed}>{(path) => <li data-change="changed">changed {path}</li>}</For>
              <For each={diff().removed}>{(path) => <li data-change="removed">removed {path}</li>}</For>
            </ul>
            <Show when={diff().patch}>
              <pre class="history-patch">{diff().patch}</pre>
            </Show>
          </>
        )}
      </Show>
      <Show
        when={state.confirming === id()}
        fallback={
          <button type="button" onClick={() => void dispatch({ type: "ask-restore", nodeId: id() })}>
            Restore this state…
          </button>
        }
      >
        <section class="history-confirm" aria-label="Confirm the restore">
          <p>
            Write the brain's files back as they were at {localDateTime(props.entry.at)}? This becomes the
            newest state; the states after it stay in the history. The agent pauses while it is written (its
            next message wakes it on the restored brain).
          </p>
          <button
            type="button"
            class="danger"
            disabled={state.busy}
            onClick={() => void dispatch({ type: "confirm" })}
          >
            Restore
          </button>
          <button type="button" disabled={state.busy} onClick={() => void dispatch({ type: "cancel" })}>
            Cancel
          </button>
        </section>
      </Show>
    </div>
  );
}
