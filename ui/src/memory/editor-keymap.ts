import {
  cursorCharLeft,
  cursorCharRight,
  cursorDocEnd,
  cursorDocStart,
  cursorGroupLeft,
  cursorGroupRight,
  cursorLineBoundaryBackward,
  cursorLineBoundaryForward,
  cursorLineBoundaryLeft,
  cursorLineBoundaryRight,
  cursorLineDown,
  cursorLineEnd,
  cursorLineStart,
  cursorLineUp,
  cursorPageDown,
  cursorPageUp,
  deleteGroupBackward,
  deleteGroupForward,
  deleteLineBoundaryBackward,
  deleteLineBoundaryForward,
  deleteToLineEnd,
  insertNewlineKeepIndent,
  selectAll,
  selectCharLeft,
  selectCharRight,
  selectDocEnd,
  selectDocStart,
  selectGroupLeft,
  selectGroupRight,
  selectLineBoundaryBackward,
  selectLineBoundaryForward,
  selectLineBoundaryLeft,
  selectLineBoundaryRight,
  selectLineDown,
  selectLineEnd,
  selectLineStart,
  selectLineUp,
  selectPageDown,
  selectPageUp,
  splitLine,
  transposeChars,
} from "@codemirror/commands";
import { EditorSelection, findClusterBreak, type StateCommand } from "@codemirror/state";
import { EditorView, type KeyBinding } from "@codemirror/view";

/**
 * Backspace and Delete: the selection, or one character (a whole grapheme cluster, or the line break at a line's
 * edge). CodeMirror's own deleteChar commands also delete an indent unit at once, which reads the language's
 * indent unit and with it pulls the whole language package in.
 */
export const deleteChar =
  (forward: boolean): StateCommand =>
  ({ state, dispatch }) => {
    let deletedSelection = false;
    const change = state.changeByRange((range) => {
      if (!range.empty) {
        deletedSelection = true;
        return { changes: { from: range.from, to: range.to }, range: EditorSelection.cursor(range.from) };
      }
      const pos = range.head;
      const line = state.doc.lineAt(pos);
      let target = findClusterBreak(line.text, pos - line.from, forward, forward) + line.from;
      if (target === pos && line.number !== (forward ? state.doc.lines : 1)) target += forward ? 1 : -1;
      const [from, to] = forward ? [pos, target] : [target, pos];
      return from === to ? { range } : { changes: { from, to }, range: EditorSelection.cursor(from) };
    });
    if (change.changes.empty) return false;
    dispatch(
      state.update(change, {
        scrollIntoView: true,
        userEvent: deletedSelection ? "delete.selection" : forward ? "delete.forward" : "delete.backward",
        ...(deletedSelection ? { effects: EditorView.announce.of(state.phrase("Selection deleted")) } : {}),
      }),
    );
    return true;
  };
const deleteCharBackward = deleteChar(false);
const deleteCharForward = deleteChar(true);

/**
 * CodeMirror's standardKeymap, binding for binding, but with commands that do not need @codemirror/language and
 * @lezer/common (about 9 kB gzip the UI's budget could not hold): Enter's insertNewlineAndIndent asks the syntax
 * tree for the indentation, and with no language (this editor has none) keeps the line's indentation, exactly
 * what insertNewlineKeepIndent does; Backspace and Delete are deleteChar above.
 */
export const editorKeymap: readonly KeyBinding[] = [
  { key: "ArrowLeft", run: cursorCharLeft, shift: selectCharLeft, preventDefault: true },
  {
    key: "Mod-ArrowLeft",
    mac: "Alt-ArrowLeft",
    run: cursorGroupLeft,
    shift: selectGroupLeft,
    preventDefault: true,
  },
  { mac: "Cmd-ArrowLeft", run: cursorLineBoundaryLeft, shift: selectLineBoundaryLeft, preventDefault: true },
  { key: "ArrowRight", run: cursorCharRight, shift: selectCharRight, preventDefault: true },
  {
    key: "Mod-ArrowRight",
    mac: "Alt-ArrowRight",
    run: cursorGroupRight,
    shift: selectGroupRight,
    preventDefault: true,
  },
  {
    mac: "Cmd-ArrowRight",
    run: cursorLineBoundaryRight,
    shift: selectLineBoundaryRight,
    preventDefault: true,
  },
  { key: "ArrowUp", run: cursorLineUp, shift: selectLineUp, preventDefault: true },
  { mac: "Cmd-ArrowUp", run: cursorDocStart, shift: selectDocStart },
  { mac: "Ctrl-ArrowUp", run: cursorPageUp, shift: selectPageUp },
  { key: "ArrowDown", run: cursorLineDown, shift: selectLineDown, preventDefault: true },
  { mac: "Cmd-ArrowDown", run: cursorDocEnd, shift: selectDocEnd },
  { mac: "Ctrl-ArrowDown", run: cursorPageDown, shift: selectPageDown },
  { key: "PageUp", run: cursorPageUp, shift: selectPageUp },
  { key: "PageDown", run: cursorPageDown, shift: selectPageDown },
  { key: "Home", run: cursorLineBoundaryBackward, shift: selectLineBoundaryBackward, preventDefault: true },
  { key: "Mod-Home", run: cursorDocStart, shift: selectDocStart },
  { key: "End", run: cursorLineBoundaryForward, shift: selectLineBoundaryForward, preventDefault: true },
  { key: "Mod-End", run: cursorDocEnd, shift: selectDocEnd },
  { key: "Enter", run: insertNewlineKeepIndent, shift: insertNewlineKeepIndent },
  { key: "Mod-a", run: selectAll },
  { key: "Backspace", run: deleteCharBackward, shift: deleteCharBackward, preventDefault: true },
  { key: "Delete", run: deleteCharForward, preventDefault: true },
  { key: "Mod-Backspace", mac: "Alt-Backspace", run: deleteGroupBackward, preventDefault: true },
  { key: "Mod-Delete", mac: "Alt-Delete", run: deleteGroupForward, preventDefault: true },
  { mac: "Mod-Backspace", run: deleteLineBoundaryBackward, preventDefault: true },
  { mac: "Mod-Delete", run: deleteLineBoundaryForward, preventDefault: true },
  // The emacs-style bindings standardKeymap gives macOS.
  { mac: "Ctrl-b", run: cursorCharLeft, shift: selectCharLeft },
  { mac: "Ctrl-f", run: cursorCharRight, shift: selectCharRight },
  { mac: "Ctrl-p", run: cursorLineUp, shift: selectLineUp },
  { mac: "Ctrl-n", run: cursorLineDown, shift: selectLineDown },
  { mac: "Ctrl-a", run: cursorLineStart, shift: selectLineStart },
  { mac: "Ctrl-e", run: cursorLineEnd, shift: selectLineEnd },
  { mac: "Ctrl-d", run: deleteCharForward },
  { mac: "Ctrl-h", run: deleteCharBackward },
  { mac: "Ctrl-k", run: deleteToLineEnd },
  { mac: "Ctrl-Alt-h", run: deleteGroupBackward },
  { mac: "Ctrl-o", run: splitLine },
  { mac: "Ctrl-t", run: transposeChars },
  { mac: "Ctrl-v", run: cursorPageDown },
];
