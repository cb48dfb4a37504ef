import { onCleanup, onMount } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { hrefOf } from "../shared/route.js";
import { EditorPane } from "./editor-pane.js";
import { FileTree } from "./file-tree.js";
import { createMemoryController } from "./memory-controller.js";
import { SearchPanel } from "./search-panel.js";

/** The memory inspector: the brain's files, the open one in the editor, the index and search. */
export default function MemoryView(props: { api: ApiClient; path: string }) {
  const memory = createMemoryController(props.api);
  const open = (path: string, line?: number) => {
    // The file goes into the address (without a navigation), so a reload opens it again.
    history.replaceState(null, "", hrefOf("memory", path));
    void memory.editor.dispatch({ type: "open", path, ...(line ? { line } : {}) });
  };
  onMount(() => void memory.dispatch({ type: "start", ...(props.path ? { path: props.path } : {}) }));
  onCleanup(() => memory.dispose());
  return (
    <main class="memory-screen" id="main" tabindex="-1">
      <FileTree
        folders={memory.state.folders}
        expanded={memory.state.expanded}
        openPath={memory.editor.state.path}
        onToggle={(folder) => void memory.dispatch({ type: "toggle", folder })}
        onOpen={(path) => open(path)}
      />
      <EditorPane editor={memory.editor} empty="Pick a file of the brain to read or edit it." />
      <SearchPanel memory={memory} onOpen={open} />
    </main>
  );
}
