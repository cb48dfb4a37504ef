import { StreamLanguage } from "@codemirror/language";

// Markdown highlighting for the editor, line by line: headings, emphasis, code, links, quotes and fences.
// @codemirror/lang-markdown parses far more (and brings the HTML, CSS and JavaScript parsers along), which
// would put the UI over its size budget; a brain's notes need to be readable, not parsed.

interface FenceState {
  fence: boolean;
}

export const markdownMode = StreamLanguage.define<FenceState>({
  name: "markdown",
  startState: () => ({ fence: false }),
  copyState: (state) => ({ ...state }),
  token(stream, state) {
    if (stream.sol() && stream.match(/^\s*(```|~~~)/)) {
      state.fence = !state.fence;
      stream.skipToEnd();
      return "meta";
    }
    if (state.fence) {
      stream.skipToEnd();
      return "string";
    }
    if (stream.sol()) {
      if (stream.match(/^#{1,6}\s.*$/)) return "heading";
      if (stream.match(/^\s*>.*$/)) return "comment";
      if (stream.match(/^\s*([-*+]|\d+[.)])\s/)) return "keyword";
    }
    if (stream.match(/^`[^`]+`/)) return "string";
    if (stream.match(/^\*\*[^*]+\*\*/) || stream.match(/^__[^_]+__/)) return "strong";
    if (stream.match(/^\*[^*\s][^*]*\*/) || stream.match(/^_[^_\s][^_]*_/)) return "emphasis";
    if (stream.match(/^\[[^\]]*\]\([^)\s]*\)/)) return "link";
    if (stream.match(/^https?:\/\/\S+/)) return "url";
    stream.next();
    stream.eatWhile(/[^`*_[h]/);
    return null;
  },
});
