import { Show } from "solid-js";
import { CodeEditorView } from "./code-editor-view.js";
import type { FileEditor } from "./file-editor.js";

/** The open file: its path, Save (or Mod-S), what happened last, and the unsaved-changes question. */
export function EditorPane(props: { editor: FileEditor; empty: string }) {
  const s = props.editor.state;
  const dispatch = props.editor.dispatch;
  return (
    <section class="editor-pane" aria-label="Editor">
      <Show when={s.path} fallback={<p class="muted editor-empty">{props.empty}</p>}>
        {(path) => (
          <>
            <header class="editor-bar">
              <h2 class="editor-path">
                {path()}
                <Show when={props.editor.dirty()}>
                  <span class="dirty" aria-hidden="true">
                    {" "}
                    •
                  </span>
                  <span class="visually-hidden"> (unsaved changes)</span>
                </Show>
                <Show when={props.editor.waiting()}>
                  <span class="waiting"> — waiting for approval</span>
                </Show>
              </h2>
              <button
                type="button"
                class="primary"
                disabled={s.loading || s.saving || !props.editor.dirty()}
                onClick={() => void dispatch({ type: "save" })}
              >
                {s.saving ? "Saving…" : "Save"}
              </button>
            </header>
            <Show when={s.pendingOpen}>
              {(next) => (
                <div class="notice info unsaved" role="alert">
                  {path()} has unsaved changes.
                  <button type="button" class="primary" onClick={() => void dispatch({ type: "save" })}>
                    Save
                  </button>
                  <button type="button" class="danger" onClick={() => void dispatch({ type: "discard" })}>
                    Discard and open {next()}
                  </button>
                </div>
              )}
            </Show>
            <Show when={s.message}>
              {(m) => (
                <p
                  class={`notice ${m().level} save-status`}
                  role={m().level === "error" ? "alert" : "status"}
                >
                  {m().text}
                </p>
              )}
            </Show>
            <Show when={!s.loading} fallback={<p class="muted">Loading {path()}…</p>}>
              <CodeEditorView
                path={path()}
                text={s.draft}
                reveal={s.reveal}
                onChange={(text) => void dispatch({ type: "edit", text })}
                onSave={() => void dispatch({ type: "save" })}
              />
            </Show>
          </>
        )}
      </Show>
    </section>
  );
}
