import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { PolicyState, PolicyView } from "../api/command-endpoints.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface PolicyPanelState {
  versions: PolicyState | null;
  /** The version on screen (the active one unless the user picked another) with its diff. */
  shown: PolicyView | null;
  busy: boolean;
  message: NoticeMessage | null;
}

export type PolicyAction =
  | { type: "load" }
  | { type: "show"; version: number }
  | { type: "pin"; version: number }
  | { type: "rollback"; version: number }
  | { type: "unpin" };

/**
 * Command's routing policy (what learning measured, which profile each task type goes to) and its history:
 * any version with its diff against the one before, and, for an admin, pin, unpin and rollback.
 */
export function createPolicyController(api: ApiClient) {
  const [state, setState] = createStore<PolicyPanelState>({
    ...{ versions: null, shown: null, busy: false },
    message: null,
  });
  let ticket = 0;
  const fail = (what: string, message: string) =>
    setState({ busy: false, message: { level: "error", text: `${what}: ${message}` } });

  async function load(version?: number): Promise<void> {
    const mine = ++ticket;
    const [versions, shown] = await Promise.all([
      api.call("GET /api/learn/policy/versions"),
      api.call("GET /api/learn/policy", { query: version === undefined ? {} : { version } }),
    ]);
    if (mine !== ticket) return;
    if (!versions.ok) return fail("The routing policy could not load", versions.error.message);
    if (!shown.ok) return fail(`Policy version ${version ?? ""} could not load`, shown.error.message);
    setState({ versions: versions.data, shown: shown.data });
  }

  async function change(action: Exclude<PolicyAction, { type: "load" | "show" }>): Promise<void> {
    setState({ busy: true, message: null });
    const answer =
      action.type === "unpin"
        ? await api.call("POST /api/learn/policy/unpin")
        : await api.call(`POST /api/learn/policy/${action.type}`, { body: { version: action.version } });
    if (!answer.ok) return fail(`The policy could not ${action.type}`, answer.error.message);
    const done = { pin: "is pinned", rollback: "is active again", unpin: "is unpinned" };
    const text = `Version ${answer.data.active_version} ${done[action.type]}.`;
    setState({ busy: false, message: { level: "info", text } });
    await load();
  }

  function dispatch(action: PolicyAction): Promise<void> {
    if (action.type === "load") return load();
    if (action.type === "show") return load(action.version);
    return change(action);
  }

  return { state, dispatch, dispose: () => void ++ticket };
}

export type PolicyController = ReturnType<typeof createPolicyController>;
