import { createEffect, on, onCleanup, onMount } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { hrefOf } from "../shared/route.js";
import { EditorPane } from "./editor-pane.js";
import { FileTree } from "./file-tree.js";
import { createForgetController } from "./forget-controller.js";
import { createHistoryController } from "./history-controller.js";
import { HistoryPanel } from "./history-panel.js";
import { IndexPanel } from "./index-panel.js";
import { createMemoryController } from "./memory-controller.js";
import { createPromotionController } from "./promotion-controller.js";
import { PromotionPanel } from "./promotion-panel.js";
import { SearchForm, SearchResults } from "./search-panel.js";

/** `sessions/2026-03-03/x.md#09:15:00 — user` (a citation followed from the chat) → the file and the heading. */
export function splitTarget(rest: string): { path: string; heading?: string } {
  const at = rest.indexOf("#");
  if (at < 0) return { path: rest };
  const heading = rest.slice(at + 1).trim();
  return heading ? { path: rest.slice(0, at), heading } : { path: rest.slice(0, at) };
}

/**
 * The memory inspector: the brain's files; in the main area the search box, then either the search's hits or
 * the open file in the editor (a hit opens its file there, its lines marked); beside them the index and
 * the proposals.
 */
export default function MemoryView(props: { api: ApiClient; path: string }) {
  const memory = createMemoryController(props.api);
  const open = (path: string, line?: number, heading?: string, endLine?: number) => {
    // The file goes into the address (without a navigation), so a reload opens it again.
    history.replaceState(null, "", hrefOf("memory", heading ? `${path}#${heading}` : path));
    void memory.editor.dispatch({
      type: "open",
      path,
      ...(line ? { line } : {}),
      ...(endLine ? { endLine } : {}),
      ...(heading ? { heading } : {}),
    });
    void memory.dispatch({ type: "results", shown: false });
  };
  const promotions = createPromotionController(props.api, {
    onApproved(ref) {
      void memory.dispatch({ type: "refresh-status" });
      // The fact was appended to memory.md: show it there, unless the person is editing something.
      const path = ref.replace(/#.*$/, "");
      if (!memory.editor.dirty()) void memory.editor.dispatch({ type: "open", path, force: true });
    },
  });
  const forget = createForgetController(props.api, {
    onForgotten(paths) {
      void memory.dispatch({ type: "refresh-status" });
      void memory.dispatch({ type: "search", query: memory.state.search.query });
      const shown = memory.editor.state.path;
      if (shown && paths.includes(shown) && !memory.editor.dirty())
        void memory.editor.dispatch({ type: "open", path: shown, force: true });
    },
  });
  const brainHistory = createHistoryController(props.api, {
    onRestored(files) {
      void memory.dispatch({ type: "refresh-status" });
      const shown = memory.editor.state.path;
      if (shown && files.includes(shown) && !memory.editor.dirty())
        void memory.editor.dispatch({ type: "open", path: shown, force: true });
    },
  });
  onMount(() => {
    void memory.dispatch({ type: "start", ...splitTarget(props.path) });
    void promotions.dispatch({ type: "load" });
    void brainHistory.dispatch({ type: "load" });
  });
  // Following another citation while the inspector is open changes only the address.
  createEffect(
    on(
      () => props.path,
      (rest) => {
        const target = splitTarget(rest);
        if (target.path) open(target.path, undefined, target.heading);
      },
      { defer: true },
    ),
  );
  onCleanup(() => {
    memory.dispose();
    promotions.dispose();
    brainHistory.dispose();
  });
  return (
    <main class="memory-screen" id="main" tabindex="-1">
      <FileTree
        folders={memory.state.folders}
        expanded={memory.state.expanded}
        openPath={memory.editor.state.path}
        onToggle={(folder) => void memory.dispatch({ type: "toggle", folder })}
        onOpen={(path) => open(path)}
      />
      <div class="memory-main">
        <SearchForm memory={memory} />
        {/* Both stay mounted: the editor keeps its place and undo history while the hits are shown. */}
        <div class="memory-results" hidden={!memory.state.search.shown}>
          <SearchResults
            memory={memory}
            forget={forget}
            onOpen={(path, line, endLine) => open(path, line, undefined, endLine)}
          />
        </div>
        <div class="memory-editor" hidden={memory.state.search.shown}>
          <EditorPane
            editor={memory.editor}
            empty="Pick a file of the brain to read or edit it, or search it."
          />
        </div>
      </div>
      <IndexPanel memory={memory}>
        <PromotionPanel promotions={promotions} onOpen={(path, heading) => open(path, undefined, heading)} />
        <HistoryPanel history={brainHistory} />
      </IndexPanel>
    </main>
  );
}
