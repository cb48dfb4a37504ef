import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { Session, ToolAuditEntry, ToolAuditFilter, WardenAuditRecord } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";

export type AuditTab = "tools" | "memory" | "warden";

/** A write to the brain, by a person through the inspector or by the agent through its memory tool. */
export interface MemoryWrite {
  at: string;
  by: string;
  what: string;
  outcome: string;
}

export interface AuditState {
  tab: AuditTab;
  filter: { session: string; tool: string; outcome: string };
  sessions: Session[];
  tools: ToolAuditEntry[];
  writes: MemoryWrite[];
  warden: WardenAuditRecord[];
  wardenAction: string;
  loading: boolean;
  error: string;
}

export type AuditAction =
  | { type: "start" }
  | { type: "tab"; tab: AuditTab }
  | { type: "filter"; field: keyof AuditState["filter"]; value: string }
  | { type: "warden-action"; action: string };

const WRITE_ACTIONS = ["brain.write", "brain.delete"];

/** Audit: the agent's tool calls (from its brain), memory writes, and the warden's own trail. */
export function createAuditController(api: ApiClient) {
  const [state, setState] = createStore<AuditState>({
    tab: "tools",
    filter: { session: "", tool: "", outcome: "" },
    sessions: [],
    tools: [],
    writes: [],
    warden: [],
    wardenAction: "",
    loading: false,
    error: "",
  });
  const generations = createGenerations();

  async function loadTools(ticket: number): Promise<void> {
    const { session, tool, outcome } = state.filter;
    const query = {
      ...(session ? { session } : {}),
      ...(tool ? { tool } : {}),
      ...(outcome ? { outcome: outcome as NonNullable<ToolAuditFilter["outcome"]> } : {}),
      limit: 200,
    };
    const answer = await api.call("GET /api/audit/tools", { query });
    if (!generations.isCurrent("load", ticket)) return;
    if (answer.ok) setState({ tools: answer.data.entries, error: "" });
    else setState("error", `The tool calls could not load: ${answer.error.message}`);
  }

  async function loadWrites(ticket: number): Promise<void> {
    const [agent, ...people] = await Promise.all([
      api.call("GET /api/audit/tools", { query: { tool: "memory", limit: 200 } }),
      ...WRITE_ACTIONS.map((action) => api.call("GET /api/audit", { query: { action, limit: 200 } })),
    ]);
    if (!generations.isCurrent("load", ticket)) return;
    const failed = [agent, ...people].find((a) => a && !a.ok);
    if (failed && !failed.ok)
      return void setState("error", `Memory writes could not load: ${failed.error.message}`);
    const writes: MemoryWrite[] = [
      ...(agent?.ok ? agent.data.entries : []).map((e) => ({
        at: e.ts,
        by: `agent ${e.agent}`,
        what: e.args,
        outcome: e.outcome,
      })),
      ...people
        .flatMap((a) => (a.ok ? a.data : []))
        .map((r) => ({
          at: r.at,
          by: r.actor,
          what: `${r.action === "brain.delete" ? "deleted" : "wrote"} ${String(r.detail.path ?? "")}`,
          outcome: "ok",
        })),
    ];
    setState({ writes: writes.sort((a, b) => (a.at < b.at ? 1 : -1)), error: "" });
  }

  async function loadWarden(ticket: number): Promise<void> {
    const answer = await api.call("GET /api/audit", {
      query: { limit: 200, ...(state.wardenAction ? { action: state.wardenAction } : {}) },
    });
    if (!generations.isCurrent("load", ticket)) return;
    if (answer.ok) setState({ warden: answer.data, error: "" });
    else setState("error", `The warden's trail could not load: ${answer.error.message}`);
  }

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState("loading", true);
    if (state.tab === "tools") await loadTools(ticket);
    else if (state.tab === "memory") await loadWrites(ticket);
    else await loadWarden(ticket);
    if (generations.isCurrent("load", ticket)) setState("loading", false);
  }

  async function dispatch(action: AuditAction): Promise<void> {
    switch (action.type) {
      case "start":
        void api.call("GET /api/sessions").then((a) => a.ok && setState("sessions", a.data));
        return load();
      case "tab":
        setState("tab", action.tab);
        return load();
      case "filter":
        setState("filter", action.field, action.value);
        return load();
      case "warden-action":
        setState("wardenAction", action.action);
        return load();
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type AuditController = ReturnType<typeof createAuditController>;
