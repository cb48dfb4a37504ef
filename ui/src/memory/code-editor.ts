import { history, historyKeymap } from "@codemirror/commands";
import { EditorState, type Extension, RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  drawSelection,
  EditorView,
  highlightActiveLine,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { editorKeymap } from "./editor-keymap.js";
import { markdownMode } from "./markdown-mode.js";

export interface CodeEditorOptions {
  text: string;
  language: "markdown" | "text";
  /** The accessible name of the editing area. */
  label: string;
  onChange(text: string): void;
  onSave(): void;
}

export interface CodeEditorHandle {
  /** Replaces the whole text (another file was opened); not reported back through onChange. */
  setText(text: string): void;
  /** Scrolls to `line` and puts the cursor there; with `end`, marks lines line..end (a search hit). */
  revealLine(line: number, end?: number | null): void;
  focus(): void;
  destroy(): void;
}

// Colours come from the page's custom properties, which reach into the editor's shadow root: one theme that
// follows light and dark.
const theme = EditorView.theme({
  "&": {
    flex: "1",
    minWidth: "0",
    color: "var(--text)",
    backgroundColor: "var(--surface)",
    fontSize: "0.875rem",
  },
  "&.cm-focused": { outline: "2px solid var(--focus)", outlineOffset: "-2px" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.55" },
  ".cm-gutters": {
    backgroundColor: "var(--surface-2)",
    color: "var(--muted)",
    borderRight: "1px solid var(--border)",
  },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent-soft) 45%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--accent-soft)" },
  ".cm-cursor": { borderLeftColor: "var(--text)" },
  // Markdown marks (markdown-mode.ts).
  ".md-heading": { color: "var(--tok-heading)", fontWeight: "700" },
  ".md-strong": { fontWeight: "700" },
  ".md-em": { fontStyle: "italic", color: "var(--tok-keyword)" },
  ".md-list": { color: "var(--tok-keyword)" },
  ".md-code, .md-link": { color: "var(--tok-string)" },
  ".md-quote, .md-fence": { color: "var(--tok-meta)" },
  ".cm-hit-line": {
    backgroundColor: "var(--warn-soft)",
    boxShadow: "inset 3px 0 0 var(--warn)",
  },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "color-mix(in srgb, var(--accent) 30%, transparent)",
  },
});

// The lines of the search hit the file was opened at, marked until another hit is shown.
const markHit = StateEffect.define<{ from: number; to: number } | null>();
const hitLine = Decoration.line({ class: "cm-hit-line" });
const hitLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(markHit)) continue;
      const builder = new RangeSetBuilder<Decoration>();
      if (effect.value)
        for (let n = effect.value.from; n <= effect.value.to; n++) {
          const line = tr.state.doc.line(n);
          builder.add(line.from, line.from, hitLine);
        }
      next = builder.finish();
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/**
 * CodeMirror 6 for brain files, inside a shadow root: there CodeMirror puts its styles in a constructed
 * stylesheet, which the page's CSP allows, where in the document it would add a <style> element, which the CSP
 * refuses. Tab is left to the browser so keyboard users can move on (the editor's own advice); Mod-s saves.
 */
export function mountCodeEditor(host: HTMLElement, options: CodeEditorOptions): CodeEditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  const parent = document.createElement("div");
  // CSSOM, which the CSP allows (a style attribute in markup it would not).
  Object.assign(parent.style, { flex: "1", minWidth: "0", display: "flex" });
  root.replaceChildren(parent);
  let quiet = false;
  const extensions: Extension[] = [
    lineNumbers(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    EditorView.lineWrapping,
    hitLines,
    theme,
    keymap.of([
      {
        key: "Mod-s",
        preventDefault: true,
        run: () => {
          options.onSave();
          return true;
        },
      },
      ...editorKeymap,
      ...historyKeymap,
    ]),
    EditorView.contentAttributes.of({ "aria-label": options.label, "aria-multiline": "true" }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged && !quiet) options.onChange(update.state.doc.toString());
    }),
    ...(options.language === "markdown" ? [markdownMode] : []),
  ];
  const view = new EditorView({ parent, root, state: EditorState.create({ doc: options.text, extensions }) });
  return {
    setText(text) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      quiet = false;
    },
    revealLine(line, end) {
      const lines = view.state.doc.lines;
      const first = Math.min(Math.max(1, line), lines);
      const last = end ? Math.min(Math.max(first, end), lines) : null;
      const target = view.state.doc.line(first);
      view.dispatch({
        selection: { anchor: target.from },
        effects: [
          EditorView.scrollIntoView(target.from, { y: "center" }),
          markHit.of(last ? { from: first, to: last } : null),
        ],
      });
    },
    focus: () => view.focus(),
    destroy() {
      view.destroy();
      root.replaceChildren();
    },
  };
}
