import { RangeSetBuilder } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  type EditorView,
  ViewPlugin,
  type ViewUpdate,
} from "@codemirror/view";

// Markdown colours for the editor, line by line, as marks on the visible lines: headings, emphasis, code,
// links, quotes, list markers and fences. Neither @codemirror/lang-markdown (which brings the HTML, CSS and
// JavaScript parsers) nor a stream language (which brings the whole parser and highlighter machinery): a
// brain's notes need to be readable, not parsed, and the UI has a size budget.

const mark = (name: string) => Decoration.mark({ class: `md-${name}` });
const HEADING = mark("heading");
const QUOTE = mark("quote");
const LIST = mark("list");
const FENCE = mark("fence");
const CODE = mark("code");
const INLINE: [RegExp, Decoration][] = [
  [/`[^`\n]+`/y, CODE],
  [/\*\*[^*\n]+\*\*|__[^_\n]+__/y, mark("strong")],
  [/\*[^*\s][^*\n]*\*|_[^_\s][^_\n]*_/y, mark("em")],
  [/\[[^\]\n]*\]\([^)\s]*\)|https?:\/\/\S+/y, mark("link")],
];
const FENCE_LINE = /^\s*(```|~~~)/;

function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const { doc } = view.state;
  const { from: top, to: bottom } = view.viewport;
  // Whether a line is inside a fence depends on every fence above it, visible or not.
  let fenced = false;
  for (let n = 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    if (line.from > bottom) break;
    const isFence = FENCE_LINE.test(line.text);
    if (line.to < top || line.from === line.to) {
      if (isFence) fenced = !fenced;
      continue;
    }
    if (isFence) {
      fenced = !fenced;
      builder.add(line.from, line.to, FENCE);
    } else if (fenced) builder.add(line.from, line.to, CODE);
    else if (/^#{1,6}\s/.test(line.text)) builder.add(line.from, line.to, HEADING);
    else if (/^\s*>/.test(line.text)) builder.add(line.from, line.to, QUOTE);
    else decorateInline(builder, line.from, line.text);
  }
  return builder.finish();
}

function decorateInline(builder: RangeSetBuilder<Decoration>, from: number, text: string): void {
  let at = 0;
  const marker = /^\s*([-*+]|\d+[.)])\s/.exec(text);
  if (marker) {
    builder.add(from, from + marker[0].length, LIST);
    at = marker[0].length;
  }
  while (at < text.length) {
    let matched = false;
    for (const [pattern, decoration] of INLINE) {
      pattern.lastIndex = at;
      const match = pattern.exec(text);
      if (!match) continue;
      builder.add(from + at, from + at + match[0].length, decoration);
      at += match[0].length;
      matched = true;
      break;
    }
    if (!matched) at += 1;
  }
}

export const markdownMode = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorate(view);
    }
    update(update: ViewUpdate) {
      if (update.docChanged || update.viewportChanged) this.decorations = decorate(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);
