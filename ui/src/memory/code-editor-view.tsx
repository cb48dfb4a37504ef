import { createEffect, createSignal, onCleanup, onMount, Show } from "solid-js";
import type { CodeEditorHandle } from "./code-editor.js";

export interface CodeEditorViewProps {
  /** Which file: a new path replaces the text; the same path keeps the user's edits. */
  path: string;
  text: string;
  /** Lines to show (a search hit or a cited heading); a new `seq` shows them again. */
  reveal?: { line: number; end: number | null; seq: number } | null;
  onChange(text: string): void;
  onSave(): void;
}

/** The editor, loaded on first use (CodeMirror is most of the UI's weight, and only these screens need it). */
export function CodeEditorView(props: CodeEditorViewProps) {
  let host!: HTMLDivElement;
  let handle: CodeEditorHandle | undefined;
  const [failed, setFailed] = createSignal("");
  let shownReveal = 0;
  onMount(async () => {
    try {
      const { mountCodeEditor } = await import("./code-editor.js");
      handle = mountCodeEditor(host, {
        text: props.text,
        language: props.path.endsWith(".md") ? "markdown" : "text",
        label: `Contents of ${props.path}`,
        onChange: (text) => props.onChange(text),
        onSave: () => props.onSave(),
      });
      if (props.reveal) handle.revealLine(props.reveal.line, props.reveal.end);
      shownReveal = props.reveal?.seq ?? 0;
    } catch (error) {
      setFailed(`The editor could not load (${(error as Error).message}); reload the page.`);
    }
  });
  createEffect(() => {
    const { text, reveal } = props;
    if (!handle) return;
    // Another file, or the same one re-read or discarded, shows what the controller holds; while typing the
    // two are equal and nothing happens.
    handle.setText(text);
    if (reveal && reveal.seq !== shownReveal) handle.revealLine(reveal.line, reveal.end);
    shownReveal = reveal?.seq ?? 0;
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
