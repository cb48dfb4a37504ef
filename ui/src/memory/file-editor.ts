import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import { createGenerations } from "../shared/generation.js";

export interface FileEditorState {
  path: string | null;
  /** The text as last read from or written to the brain. */
  saved: string;
  draft: string;
  loading: boolean;
  saving: boolean;
  /** What happened last (saved, held by the soul guard, refused), for the status line; `ok` is a success. */
  message: { level: "error" | "info" | "ok"; text: string } | null;
  /** A file asked for while the draft has unsaved changes: the view asks to save or discard first. */
  pendingOpen: string | null;
  /** The text of a save the soul guard held: it waits for a person's approval, so it is not "unsaved". */
  waiting: string | null;
  /** The lines to bring into view once the file is open (a search hit: highlighted, `end` its last line). */
  reveal: { line: number; end: number | null; seq: number } | null;
}

export type FileEditorAction =
  | { type: "open"; path: string; line?: number; endLine?: number; heading?: string; force?: boolean }
  | { type: "edit"; text: string }
  | { type: "save" }
  | { type: "discard" }
  | { type: "close" };

/**
 * One brain file open for editing, shared by the memory inspector and instruction mode. Saving goes through
 * the warden: an edit the soul guard holds waits for approval, a bad cron/jobs.toml is refused with its line.
 */
export function createFileEditor(api: ApiClient, hooks: { onSaved?(path: string): void } = {}) {
  const [state, setState] = createStore<FileEditorState>({
    path: null,
    saved: "",
    draft: "",
    loading: false,
    saving: false,
    message: null,
    pendingOpen: null,
    waiting: null,
    reveal: null,
  });
  let seq = 0;
  const revealOf = (line: number | undefined, end?: number) =>
    line ? { line, end: end ?? null, seq: ++seq } : null;
  const generations = createGenerations();
  const dirty = () => state.path !== null && state.draft !== state.saved && state.draft !== state.waiting;
  /** The open file's edit was saved and held: it waits for approval on the Soul guard screen. */
  const waiting = () => state.path !== null && state.waiting !== null && state.draft === state.waiting;

  async function open(path: string, line: number | undefined, heading?: string, end?: number): Promise<void> {
    const ticket = generations.next("open");
    setState({
      path,
      loading: true,
      message: null,
      pendingOpen: null,
      waiting: null,
      saved: "",
      draft: "",
      reveal: revealOf(line, end),
    });
    const answer = await api.call("GET /api/brain/file", { query: { path } });
    if (!generations.isCurrent("open", ticket)) return;
    if (answer.ok)
      setState({
        saved: answer.data.content,
        draft: answer.data.content,
        loading: false,
        ...(heading ? { reveal: revealOf(headingLine(answer.data.content, heading) ?? line) } : {}),
      });
    else
      setState({
        loading: false,
        message: { level: "error", text: `${path} could not be opened: ${answer.error.message}` },
      });
  }

  async function save(): Promise<void> {
    const path = state.path;
    if (!path || state.saving) return;
    const content = state.draft;
    setState({ saving: true, message: null });
    const answer = await api.call("PUT /api/brain/file", { body: { path, content } });
    if (state.path !== path) return;
    if (!answer.ok) {
      const detail =
        answer.error.issues?.map((i) => `${i.path}: ${i.message}`).join("\n") ?? answer.error.message;
      return void setState({ saving: false, message: { level: "error", text: `Not saved. ${detail}` } });
    }
    if (answer.data.held) {
      const why = answer.data.held.reasons[0] ?? "the soul guard held it";
      return void setState({
        saving: false,
        waiting: content,
        message: {
          level: "info",
          text: `Waiting for approval: this edit was not written, because it ${why}. The agent is halted until a person decides on the Soul guard screen.`,
        },
      });
    }
    setState({
      saving: false,
      saved: content,
      waiting: null,
      message: { level: "ok", text: `Saved ${path}.` },
    });
    hooks.onSaved?.(path);
  }

  async function dispatch(action: FileEditorAction): Promise<void> {
    switch (action.type) {
      case "open":
        if (!action.force && dirty() && action.path !== state.path)
          return void setState("pendingOpen", action.path);
        // Another passage of the file being edited: show it, keeping the edits.
        if (!action.force && dirty() && action.line)
          return void setState("reveal", revealOf(action.line, action.endLine));
        return open(action.path, action.line, action.heading, action.endLine);
      case "edit":
        return void setState("draft", action.text);
      case "save":
        return save();
      case "discard": {
        const next = state.pendingOpen;
        setState({ draft: state.saved, pendingOpen: null });
        if (next) await open(next, undefined);
        return;
      }
      case "close":
        generations.next("open");
        return void setState({
          path: null,
          saved: "",
          draft: "",
          message: null,
          pendingOpen: null,
          waiting: null,
        });
    }
  }

  return { state, dispatch, dirty, waiting, dispose: () => generations.invalidateAll() };
}

export type FileEditor = ReturnType<typeof createFileEditor>;

/** The 1-based line of the first markdown heading whose text is `heading` (a citation's `#heading`). */
export function headingLine(text: string, heading: string): number | undefined {
  const wanted = heading.trim();
  const index = text.split("\n").findIndex(
    (line) =>
      /^ {0,3}#{1,6}\s/.test(line) &&
      line
        .replace(/^ {0,3}#{1,6}\s+/, "")
        .replace(/\s+#*\s*$/, "")
        .trim() === wanted,
  );
  return index >= 0 ? index + 1 : undefined;
}
