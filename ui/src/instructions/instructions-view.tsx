import { createSignal, For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { EditorPane } from "../memory/editor-pane.js";
import { Notice } from "../shared/notice.js";
import { createInstructionsController } from "./instructions-controller.js";

const nameOf = (path: string) => path.replace(/^instructions\//, "").replace(/\.md$/, "");

/** Instruction mode: a focused editor for instructions/*.md with create, rename and delete. */
export default function InstructionsView(props: { api: ApiClient }) {
  const c = createInstructionsController(props.api);
  const [newName, setNewName] = createSignal("");
  const [renaming, setRenaming] = createSignal<string | null>(null);
  const [confirming, setConfirming] = createSignal<string | null>(null);
  onMount(() => void c.dispatch({ type: "start" }));
  onCleanup(() => c.dispose());
  return (
    <main class="instructions-screen" id="main" tabindex="-1">
      <section class="instruction-list" aria-labelledby="instructions-title">
        <h2 id="instructions-title">Instructions</h2>
        <p class="muted">The agent reads every file here on each turn.</p>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void c.dispatch({ type: "create", name: newName() }).then(() => setNewName(""));
          }}
        >
          <label for="new-instruction">New instruction file</label>
          <div class="search-row">
            <input
              id="new-instruction"
              placeholder="style"
              value={newName()}
              onInput={(e) => setNewName(e.currentTarget.value)}
            />
            <button type="submit" class="primary">
              Create
            </button>
          </div>
        </form>
        <Notice message={c.state.message} />
        <Show when={!c.state.loading && c.state.files.length === 0}>
          <p class="muted">No instruction files yet.</p>
        </Show>
        <ul class="file-list">
          <For each={c.state.files}>
            {(path) => (
              <li classList={{ current: c.editor.state.path === path }}>
                <Show
                  when={renaming() === path}
                  fallback={
                    <button
                      type="button"
                      class="file-open"
                      onClick={() => void c.editor.dispatch({ type: "open", path })}
                    >
                      {nameOf(path)}
                    </button>
                  }
                >
                  <form
                    class="session-rename"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const input = e.currentTarget.elements.namedItem("name") as HTMLInputElement;
                      setRenaming(null);
                      void c.dispatch({ type: "rename", from: path, to: input.value });
                    }}
                  >
                    <label class="visually-hidden" for="rename-instruction">
                      New name for {nameOf(path)}
                    </label>
                    <input
                      id="rename-instruction"
                      name="name"
                      value={nameOf(path)}
                      onKeyDown={(e) => e.key === "Escape" && setRenaming(null)}
                    />
                  </form>
                </Show>
                <Show
                  when={confirming() === path}
                  fallback={
                    <span class="session-actions">
                      <button
                        type="button"
                        class="icon"
                        aria-label={`Rename ${nameOf(path)}`}
                        onClick={() => setRenaming(path)}
                      >
                        ✎
                      </button>
                      <button
                        type="button"
                        class="icon"
                        aria-label={`Delete ${nameOf(path)}`}
                        onClick={() => setConfirming(path)}
                      >
                        ×
                      </button>
                    </span>
                  }
                >
                  <span class="session-actions confirm">
                    <button
                      type="button"
                      class="danger"
                      onClick={() => {
                        setConfirming(null);
                        void c.dispatch({ type: "delete", path });
                      }}
                    >
                      Delete
                    </button>
                    <button type="button" class="ghost" onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </span>
                </Show>
              </li>
            )}
          </For>
        </ul>
      </section>
      <EditorPane editor={c.editor} empty="Pick an instruction file, or create one." />
    </main>
  );
}
