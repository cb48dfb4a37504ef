import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { BrainEntry, MemoryHit, MemoryIndexStatus, SearchMode } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";
import { createFileEditor } from "./file-editor.js";

export interface Folder {
  entries: BrainEntry[];
  loading: boolean;
  error: string;
}

export interface MemoryState {
  folders: Record<string, Folder>;
  expanded: string[];
  status: MemoryIndexStatus | null;
  statusError: string;
  search: {
    query: string;
    mode: SearchMode;
    hits: MemoryHit[];
    loading: boolean;
    error: string;
    done: boolean;
    /** The hits fill the main area (else the editor does; a hit opened goes back to the editor). */
    shown: boolean;
  };
}

export type MemoryAction =
  | { type: "start"; path?: string; heading?: string }
  | { type: "toggle"; folder: string }
  | { type: "search"; query: string }
  | { type: "mode"; mode: SearchMode }
  | { type: "results"; shown: boolean }
  | { type: "refresh-status" };

const ROOT = ".";

/**
 * The memory inspector: the brain's folders (listed by the cell), one file open in the editor (file-editor.ts),
 * the index status, and hybrid search whose hits carry their semantic and lexical parts and provenance.
 */
export function createMemoryController(api: ApiClient) {
  const [state, setState] = createStore<MemoryState>({
    folders: {},
    expanded: [ROOT],
    status: null,
    statusError: "",
    search: { query: "", mode: "hybrid", hits: [], loading: false, error: "", done: false, shown: false },
  });
  const generations = createGenerations();
  const editor = createFileEditor(api, {
    // A save changes what the index holds: show the new counts.
    onSaved: () => void refreshStatus(),
  });

  async function list(folder: string): Promise<void> {
    setState("folders", folder, (f) => ({ entries: f?.entries ?? [], loading: true, error: "" }));
    const answer = await api.call("GET /api/brain/files", { query: folder === ROOT ? {} : { path: folder } });
    if (answer.ok) setState("folders", folder, { entries: answer.data.entries, loading: false, error: "" });
    else setState("folders", folder, { entries: [], loading: false, error: answer.error.message });
  }

  async function refreshStatus(): Promise<void> {
    const ticket = generations.next("status");
    const answer = await api.call("GET /api/memory/status");
    if (!generations.isCurrent("status", ticket)) return;
    if (answer.ok) setState({ status: answer.data, statusError: "" });
    else setState("statusError", answer.error.message);
  }

  async function search(): Promise<void> {
    const { query, mode } = state.search;
    if (query.trim() === "")
      return void setState("search", { hits: [], error: "", done: false, loading: false, shown: false });
    const ticket = generations.next("search");
    setState("search", { loading: true, error: "", shown: true });
    const answer = await api.call("GET /api/memory/search", { query: { q: query, mode, limit: 10 } });
    if (!generations.isCurrent("search", ticket)) return;
    if (answer.ok) setState("search", { hits: answer.data.hits, loading: false, done: true });
    else setState("search", { hits: [], loading: false, error: answer.error.message, done: true });
  }

  async function dispatch(action: MemoryAction): Promise<void> {
    switch (action.type) {
      case "start": {
        void refreshStatus();
        await list(ROOT);
        // Open the folders on the way to a file named in the address, then the file.
        const parts = (action.path ?? "").split("/").slice(0, -1);
        for (let i = 1; i <= parts.length; i++) {
          const folder = parts.slice(0, i).join("/");
          if (!state.expanded.includes(folder)) setState("expanded", (e) => [...e, folder]);
          await list(folder);
        }
        if (action.path)
          await editor.dispatch({
            type: "open",
            path: action.path,
            ...(action.heading ? { heading: action.heading } : {}),
          });
        return;
      }
      case "toggle": {
        const open = state.expanded.includes(action.folder);
        setState("expanded", (e) => (open ? e.filter((f) => f !== action.folder) : [...e, action.folder]));
        if (!open) await list(action.folder);
        return;
      }
      case "search":
        setState("search", "query", action.query);
        return search();
      case "mode":
        setState("search", "mode", action.mode);
        return search();
      case "results":
        return void setState("search", "shown", action.shown && state.search.done);
      case "refresh-status":
        return refreshStatus();
    }
  }

  return {
    state,
    dispatch,
    editor,
    dispose() {
      generations.invalidateAll();
      editor.dispose();
    },
  };
}

export type MemoryController = ReturnType<typeof createMemoryController>;
