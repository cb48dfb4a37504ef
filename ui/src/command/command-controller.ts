import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { RunSummary } from "../api/command-endpoints.js";
import { createOpenRun, type LiveOptions } from "../runs/open-run.js";
import type { NoticeMessage } from "../shared/notice.js";

export interface CommandState {
  runs: RunSummary[];
  /** The order whose worktree, branch, AAR, gate output and merge are shown beside the graph. */
  selected: string | null;
  message: NoticeMessage | null;
}

export type CommandAction =
  | { type: "start" }
  | { type: "open"; id: string }
  | { type: "close" }
  | { type: "select"; orderId: string | null };

/**
 * The command view's runs: the list to pick from and one run kept current from the ledger's event stream (the
 * same follow the runs view uses), whose orders the view draws as a graph, with one order selected.
 */
export function createCommandController(api: ApiClient, live: LiveOptions = {}) {
  const [state, setState] = createStore<CommandState>({ runs: [], selected: null, message: null });
  let ticket = 0;
  const open = createOpenRun(api, live, (run) => {
    const at = state.runs.findIndex((r) => r.run_id === run.run_id);
    if (at >= 0) setState("runs", at, { ...run });
  });

  async function loadRuns(): Promise<void> {
    const mine = ++ticket;
    const answer = await api.call("GET /api/runs");
    if (mine !== ticket) return;
    if (!answer.ok)
      return void setState("message", {
        level: "error",
        text: `Runs could not load: ${answer.error.message}`,
      });
    setState("runs", Array.isArray(answer.data) ? answer.data : answer.data.runs);
  }

  async function dispatch(action: CommandAction): Promise<void> {
    switch (action.type) {
      case "start":
        return loadRuns();
      case "open":
        if (open.state.id !== action.id) setState("selected", null);
        return open.open(action.id);
      case "close":
        setState("selected", null);
        return open.close();
      case "select":
        return void setState("selected", action.orderId);
    }
  }

  function dispose(): void {
    ticket += 1;
    open.close();
  }

  return { state, open: open.state, dispatch, dispose };
}

export type CommandController = ReturnType<typeof createCommandController>;
