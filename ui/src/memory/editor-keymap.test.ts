import { EditorSelection, EditorState, type Transaction } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { deleteChar, editorKeymap } from "./editor-keymap.js";

/** Runs a command on a document whose cursor (or selection) is marked by | (or two of them). */
function press(command: ReturnType<typeof deleteChar>, marked: string): string {
  const [first, second] = [marked.indexOf("|"), marked.indexOf("|", marked.indexOf("|") + 1)];
  const doc = marked.replaceAll("|", "");
  const selection = second < 0 ? EditorSelection.cursor(first) : EditorSelection.range(first, second - 1);
  let state = EditorState.create({ doc, selection });
  command({
    state,
    dispatch: (tr: Transaction) => {
      state = tr.state;
    },
  });
  const { from, to } = state.selection.main;
  const text = state.doc.toString();
  return from === to ? `${text.slice(0, from)}|${text.slice(from)}` : text;
}

describe("the editor's Backspace and Delete", () => {
  it("delete one character, a whole emoji, the line break at a line's edge, or the selection", () => {
    expect(press(deleteChar(false), "ab|c")).toBe("a|c");
    expect(press(deleteChar(true), "ab|c")).toBe("ab|");
    expect(press(deleteChar(false), "a😀|b")).toBe("a|b");
    expect(press(deleteChar(true), "a|👍🏽b")).toBe("a|b");
    expect(press(deleteChar(false), "one\n|two")).toBe("one|two");
    expect(press(deleteChar(true), "one|\ntwo")).toBe("one|two");
    expect(press(deleteChar(false), "  - item\n    |x")).toBe("  - item\n   |x");
    expect(press(deleteChar(true), "a|bcd|e")).toBe("a|e");
  });

  it("do nothing at the document's edges", () => {
    expect(press(deleteChar(false), "|abc")).toBe("|abc");
    expect(press(deleteChar(true), "abc|")).toBe("abc|");
  });
});

describe("the editor's keymap", () => {
  it("binds Enter to keep the line's indentation, and every key of CodeMirror's standard keymap", async () => {
    const { standardKeymap } = await import("@codemirror/commands");
    const keys = (map: readonly { key?: string; mac?: string }[]) =>
      map.map((b) => `${b.key ?? ""}/${b.mac ?? ""}`).sort();
    expect(keys(editorKeymap)).toEqual(keys(standardKeymap));
    const enter = editorKeymap.find((b) => b.key === "Enter");
    let state = EditorState.create({ doc: "  - item", selection: EditorSelection.cursor(8) });
    enter?.run?.({
      state,
      dispatch: (tr: Transaction) => {
        state = tr.state;
      },
    } as never);
    expect(state.doc.toString()).toBe("  - item\n  ");
  });
});
