import { createEffect, createSignal, onCleanup, onMount, Show } from "solid-js";
import type { CodeEditorHandle } from "./code-editor.js";

export interface CodeEditorViewProps {
  /** Which file: a new path replaces the text; the same path keeps the user's edits. */
  path: string;
  text: string;
  revealLine?: number | null;
  onChange(text: string): void;
  onSave(): void;
}

/** The editor, loaded on first use (CodeMirror is most of the UI's weight, and only these screens need it). */
export function CodeEditorView(props: CodeEditorViewProps) {
  let host!: HTMLDivElement;
  let handle: CodeEditorHandle | undefined;
  const [failed, setFailed] = createSignal("");
  let shownPath = "";
  onMount(async () => {
    try {
      const { mountCodeEditor } = await import("./code-editor.js");
      shownPath = props.path;
      handle = mountCodeEditor(host, {
        text: props.text,
        language: props.path.endsWith(".md") ? "markdown" : "text",
        label: `Contents of ${props.path}`,
        onChange: (text) => props.onChange(text),
        onSave: () => props.onSave(),
      });
      if (props.revealLine) handle.revealLine(props.revealLine);
    } catch (error) {
      setFailed(`The editor could not load (${(error as Error).message}); reload the page.`);
    }
  });
  createEffect(() => {
    const { path, text } = props;
    if (!handle) return;
    // Another file, or the same one re-read or discarded, shows what the controller holds; while typing the
    // two are equal and nothing happens.
    handle.setText(text);
    if (path !== shownPath && props.revealLine) handle.revealLine(props.revealLine);
    shownPath = path;
  });
  onCleanup(() => handle?.destroy());
  return (
    <>
      <Show when={failed()}>
        <p class="notice error" role="alert">
          {failed()}
        </p>
      </Show>
      <div ref={host} class="code-editor" data-path={props.path} />
    </>
  );
}
