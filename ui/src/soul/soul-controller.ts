import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { SoulChange, SoulChangeDetail } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";
import { noteSoulDecided } from "../shared/soul-signal.js";

export interface SoulState {
  pending: SoulChange[];
  loading: boolean;
  selected: SoulChangeDetail | null;
  deciding: boolean;
  message: { level: "error" | "info"; text: string } | null;
}

export type SoulAction =
  | { type: "start" }
  | { type: "select"; id: string }
  | { type: "decide"; id: string; verdict: "approve" | "reject" };

/** The soul guard's held changes to prompt files: look at one side by side, then approve or reject it. */
export function createSoulController(api: ApiClient) {
  const [state, setState] = createStore<SoulState>({
    pending: [],
    loading: false,
    selected: null,
    deciding: false,
    message: null,
  });
  const generations = createGenerations();

  async function load(): Promise<void> {
    const ticket = generations.next("pending");
    setState("loading", true);
    const answer = await api.call("GET /api/soul/pending");
    if (!generations.isCurrent("pending", ticket)) return;
    setState("loading", false);
    if (!answer.ok)
      return void setState("message", {
        level: "error",
        text: `Held changes could not load: ${answer.error.message}`,
      });
    setState("pending", answer.data);
    const first = answer.data[0];
    if (first && !state.selected) await select(first.id);
  }

  async function select(id: string): Promise<void> {
    const ticket = generations.next("detail");
    const answer = await api.call("GET /api/soul/changes/:id", { params: { id } });
    if (!generations.isCurrent("detail", ticket)) return;
    if (answer.ok) setState("selected", answer.data);
    else setState("message", { level: "error", text: `That change could not load: ${answer.error.message}` });
  }

  async function dispatch(action: SoulAction): Promise<void> {
    switch (action.type) {
      case "start":
        return load();
      case "select":
        return select(action.id);
      case "decide": {
        setState({ deciding: true, message: null });
        const answer =
          action.verdict === "approve"
            ? await api.call("POST /api/soul/changes/:id/approve", { params: { id: action.id } })
            : await api.call("POST /api/soul/changes/:id/reject", { params: { id: action.id } });
        setState("deciding", false);
        noteSoulDecided();
        if (!answer.ok)
          return void setState("message", { level: "error", text: `Not decided: ${answer.error.message}` });
        const path = answer.data.path;
        const left = state.pending.length - 1;
        const runs =
          left > 0
            ? `${left} more change${left === 1 ? "" : "s"} must be decided first`
            : "the agent runs again";
        setState({
          selected: null,
          message: {
            level: "info",
            text:
              action.verdict === "approve"
                ? `Approved: the new ${path} is in force and is what later changes are compared with; ${runs}.`
                : `Rejected: the approved ${path} is restored; ${runs}.`,
          },
        });
        return load();
      }
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type SoulController = ReturnType<typeof createSoulController>;
