import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import { createFileEditor } from "../memory/file-editor.js";
import { createGenerations } from "../shared/generation.js";

export interface InstructionsState {
  files: string[];
  loading: boolean;
  /** The last thing that went wrong or happened, for the status line. */
  message: { level: "error" | "info"; text: string } | null;
}

export type InstructionsAction =
  | { type: "start" }
  | { type: "create"; name: string }
  | { type: "rename"; from: string; to: string }
  | { type: "delete"; path: string };

const FOLDER = "instructions";
const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$/;

/** `style` or `style.md` → `instructions/style.md`, or why the name cannot be a file name. */
export function instructionPath(name: string): { path: string } | { error: string } {
  const base = name.trim().replace(/\.md$/i, "");
  if (!NAME.test(base))
    return { error: "Use 1-80 letters, digits, spaces, dots, - or _, starting with a letter or digit." };
  return { path: `${FOLDER}/${base}.md` };
}

/** Instruction mode: the files of instructions/ (the agent reads them every turn), created, renamed, deleted. */
export function createInstructionsController(api: ApiClient) {
  const [state, setState] = createStore<InstructionsState>({ files: [], loading: false, message: null });
  const generations = createGenerations();
  const editor = createFileEditor(api);
  const fail = (text: string) => setState("message", { level: "error", text });
  const waiting = (path: string, reasons: string[], kept?: string) =>
    setState("message", {
      level: "info",
      text:
        `Waiting for approval: ${path} was not written, because it ${reasons[0] ?? "was held by the soul guard"}. ` +
        `${kept ? `${kept} stays as it is. ` : ""}The agent is halted until a person decides on the Soul guard screen.`,
    });

  async function list(): Promise<void> {
    const ticket = generations.next("list");
    setState("loading", true);
    const answer = await api.call("GET /api/brain/files", { query: { path: FOLDER } });
    if (!generations.isCurrent("list", ticket)) return;
    setState("loading", false);
    // A brain without the folder yet simply has no instructions.
    if (!answer.ok && answer.status !== 404)
      return fail(`The instructions could not be listed: ${answer.error.message}`);
    const entries = answer.ok ? answer.data.entries : [];
    setState(
      "files",
      entries.filter((e) => e.kind === "file" && e.path.endsWith(".md")).map((e) => e.path),
    );
  }

  async function dispatch(action: InstructionsAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return list();
      case "create": {
        const target = instructionPath(action.name);
        if ("error" in target) return fail(target.error);
        if (state.files.includes(target.path)) return fail(`${target.path} already exists.`);
        const title = target.path.slice(FOLDER.length + 1, -3);
        const answer = await api.call("PUT /api/brain/file", {
          body: { path: target.path, content: `# ${title}\n\n` },
        });
        if (!answer.ok) return fail(`${target.path} could not be created: ${answer.error.message}`);
        if (answer.data.held) return waiting(target.path, answer.data.held.reasons);
        await list();
        return editor.dispatch({ type: "open", path: target.path, force: true });
      }
      case "rename": {
        const target = instructionPath(action.to);
        if ("error" in target) return fail(target.error);
        if (target.path === action.from) return;
        if (state.files.includes(target.path)) return fail(`${target.path} already exists.`);
        // There is no rename operation in a brain: copy, then delete; a failed delete leaves both, never neither.
        const read = await api.call("GET /api/brain/file", { query: { path: action.from } });
        if (!read.ok) return fail(`${action.from} could not be read: ${read.error.message}`);
        const content = editor.state.path === action.from ? editor.state.draft : read.data.content;
        const written = await api.call("PUT /api/brain/file", { body: { path: target.path, content } });
        if (!written.ok) return fail(`${target.path} could not be written: ${written.error.message}`);
        // Held, the copy does not exist yet: deleting the original now would lose the file.
        if (written.data.held) return waiting(target.path, written.data.held.reasons, action.from);
        const removed = await api.call("DELETE /api/brain/file", { query: { path: action.from } });
        await list();
        await editor.dispatch({ type: "open", path: target.path, force: true });
        if (!removed.ok)
          fail(`Copied to ${target.path}, but ${action.from} could not be deleted: ${removed.error.message}`);
        else setState("message", { level: "info", text: `Renamed to ${target.path}.` });
        return;
      }
      case "delete": {
        const answer = await api.call("DELETE /api/brain/file", { query: { path: action.path } });
        if (!answer.ok) return fail(`${action.path} could not be deleted: ${answer.error.message}`);
        if (editor.state.path === action.path) await editor.dispatch({ type: "close" });
        setState("message", { level: "info", text: `Deleted ${action.path}.` });
        return list();
      }
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

export type InstructionsController = ReturnType<typeof createInstructionsController>;
