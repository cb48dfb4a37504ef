import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { MemoryForgetResult } from "../api/endpoints.js";

export interface ForgetState {
  /** What is being forgotten: a search's words, or one hit's chunk id (with a label a person can read). */
  target: { value: string; label: string } | null;
  /** What the brain would lose, text included, while the person decides. */
  preview: MemoryForgetResult | null;
  busy: boolean;
  message: { level: "error" | "info"; text: string } | null;
}

export type ForgetAction =
  | { type: "preview"; target: string; label: string }
  | { type: "confirm" }
  | { type: "cancel" };

/**
 * Forgetting from the memory inspector, in two steps: a preview of every passage that would go (with its
 * text), then, only when the person confirms, removal for good from the brain and from the conversations.
 */
export function createForgetController(api: ApiClient, hooks: { onForgotten?(paths: string[]): void } = {}) {
  const [state, setState] = createStore<ForgetState>({
    target: null,
    preview: null,
    busy: false,
    message: null,
  });

  async function preview(target: string, label: string): Promise<void> {
    if (state.busy) return;
    setState({ target: { value: target, label }, preview: null, busy: true, message: null });
    const answer = await api.call("POST /api/memory/forget", { body: { target, apply: false } });
    if (state.target?.value !== target) return;
    if (!answer.ok) {
      setState({ busy: false, target: null, message: { level: "error", text: answer.error.message } });
      return;
    }
    if (answer.data.places.length === 0) {
      setState({
        busy: false,
        target: null,
        message: { level: "info", text: "Nothing in the brain matches; nothing would be forgotten." },
      });
      return;
    }
    setState({ busy: false, preview: answer.data });
  }

  async function confirm(): Promise<void> {
    const target = state.target;
    if (!target || !state.preview || state.busy) return;
    setState("busy", true);
    const answer = await api.call("POST /api/memory/forget", { body: { target: target.value, apply: true } });
    if (!answer.ok) {
      setState({ busy: false, message: { level: "error", text: `Not forgotten: ${answer.error.message}` } });
      return;
    }
    const paths = [...new Set(answer.data.places.map((p) => p.path))];
    setState({
      busy: false,
      target: null,
      preview: null,
      message: {
        level: "info",
        text: `Forgot ${answer.data.places.length} passage(s) in ${paths.join(", ")}. The brain's audit records where, by hash.`,
      },
    });
    hooks.onForgotten?.(paths);
  }

  async function dispatch(action: ForgetAction): Promise<void> {
    if (action.type === "preview") return preview(action.target, action.label);
    if (action.type === "confirm") return confirm();
    setState({ target: null, preview: null, message: null });
  }

  return { state, dispatch };
}

export type ForgetController = ReturnType<typeof createForgetController>;
