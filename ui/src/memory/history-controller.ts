import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { BrainHistoryDiff, BrainHistoryEntry } from "../api/endpoints.js";
import { localDateTime } from "../shared/format.js";
import { createGenerations } from "../shared/generation.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface HistoryState {
  /** The brain's states, newest first. */
  entries: BrainHistoryEntry[];
  loading: boolean;
  /** The state whose changes are shown, and the one it is compared with (null: its parent). */
  selected: string | null;
  against: string | null;
  diff: BrainHistoryDiff | null;
  /** The state a person asked to restore, until they confirm or cancel. */
  confirming: string | null;
  busy: boolean;
  message: NoticeMessage | null;
}

export type HistoryAction =
  | { type: "load" }
  | { type: "select"; nodeId: string }
  | { type: "compare"; against: string | null }
  | { type: "ask-restore"; nodeId: string }
  | { type: "cancel" }
  | { type: "confirm" };

/**
 * The brain's history in the memory inspector: its states (when, why, which files), what one changed against
 * its parent or any other state, and a restore, confirmed first, that writes a state's files back as a new state.
 */
export function createHistoryController(api: ApiClient, hooks: { onRestored?(files: string[]): void } = {}) {
  const [state, setState] = createStore<HistoryState>({
    entries: [],
    loading: false,
    selected: null,
    against: null,
    diff: null,
    confirming: null,
    busy: false,
    message: null,
  });
  const generations = createGenerations();

  async function load(): Promise<void> {
    const ticket = generations.next("list");
    setState("loading", true);
    const answer = await api.call("GET /api/brain/history");
    if (!generations.isCurrent("list", ticket)) return;
    setState("loading", false);
    if (answer.ok) setState("entries", answer.data.entries);
    else setState("message", { level: "error", text: `The history could not load: ${answer.error.message}` });
  }

  async function showDiff(to: string, against: string | null): Promise<void> {
    const ticket = generations.next("diff");
    setState({ selected: to, against, diff: null, confirming: null, message: null });
    const answer = await api.call("GET /api/brain/history/diff", {
      query: { to, ...(against ? { from: against } : {}) },
    });
    if (!generations.isCurrent("diff", ticket)) return;
    if (answer.ok) setState("diff", answer.data);
    else setState("message", { level: "error", text: `The changes could not load: ${answer.error.message}` });
  }

  async function restore(): Promise<void> {
    const nodeId = state.confirming;
    if (!nodeId || state.busy) return;
    setState("busy", true);
    const answer = await api.call("POST /api/brain/history/restore", { body: { node_id: nodeId } });
    setState({ busy: false, confirming: null });
    if (!answer.ok) {
      setState("message", { level: "error", text: `Not restored: ${answer.error.message}` });
      return;
    }
    const when = state.entries.find((e) => e.node.node_id === nodeId)?.at;
    const at = when ? localDateTime(when) : nodeId;
    setState("message", {
      level: "info",
      text: answer.data.entry
        ? `Restored the brain as it was at ${at}: that is now its newest state.`
        : `The brain already holds the files it had at ${at}: nothing changed.`,
    });
    await load();
    hooks.onRestored?.(state.entries[0]?.files ?? []);
  }

  async function dispatch(action: HistoryAction): Promise<void> {
    switch (action.type) {
      case "load":
        return load();
      case "select":
        return showDiff(action.nodeId, null);
      case "compare":
        if (state.selected) return showDiff(state.selected, action.against);
        return;
      case "ask-restore":
        setState({ confirming: action.nodeId, message: null });
        return;
      case "cancel":
        setState("confirming", null);
        return;
      case "confirm":
        return restore();
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type HistoryController = ReturnType<typeof createHistoryController>;
