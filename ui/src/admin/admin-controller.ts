import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { CellStatusList, User } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";

export interface AdminState {
  users: User[];
  cells: CellStatusList | null;
  providers: string[];
  /** A token just issued: shown once, for the admin to hand over. */
  issued: { user: string; token: string } | null;
  message: { level: "error" | "info"; text: string } | null;
  loading: boolean;
}

export type AdminAction =
  | { type: "start" }
  | { type: "add-user"; name: string; admin: boolean }
  | { type: "rotate"; name: string }
  | { type: "remove"; name: string }
  | { type: "restart-cell"; user: string }
  | { type: "dismiss-token" };

/** Admin: users and their tokens, every cell's state, and the providers the host offers (names only). */
export function createAdminController(api: ApiClient) {
  const [state, setState] = createStore<AdminState>({
    users: [],
    cells: null,
    providers: [],
    issued: null,
    message: null,
    loading: false,
  });
  const generations = createGenerations();
  const fail = (text: string) => setState("message", { level: "error", text });

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState("loading", true);
    const [users, cells, providers] = await Promise.all([
      api.call("GET /api/users"),
      api.call("GET /api/admin/cells"),
      api.call("GET /api/admin/providers"),
    ]);
    if (!generations.isCurrent("load", ticket)) return;
    setState("loading", false);
    if (users.ok) setState("users", users.data);
    if (cells.ok) setState("cells", cells.data);
    if (providers.ok) setState("providers", providers.data.providers);
    const failed = [users, cells, providers].find((a) => !a.ok);
    if (failed && !failed.ok) fail(`Not everything could load: ${failed.error.message}`);
  }

  async function dispatch(action: AdminAction): Promise<void> {
    setState("message", null);
    switch (action.type) {
      case "start":
        return load();
      case "add-user": {
        const answer = await api.call("POST /api/users", {
          body: { name: action.name.trim(), admin: action.admin },
        });
        if (!answer.ok) return fail(`The user could not be added: ${answer.error.message}`);
        setState("issued", answer.data);
        return load();
      }
      case "rotate": {
        const answer = await api.call("POST /api/users/:name/token", { params: { name: action.name } });
        if (!answer.ok) return fail(`The token could not be rotated: ${answer.error.message}`);
        return void setState("issued", answer.data);
      }
      case "remove": {
        const answer = await api.call("DELETE /api/users/:name", { params: { name: action.name } });
        if (!answer.ok) return fail(`${action.name} could not be removed: ${answer.error.message}`);
        setState("message", { level: "info", text: `Removed ${action.name}; their brain stays on disk.` });
        return load();
      }
      case "restart-cell": {
        const answer = await api.call("POST /api/admin/cells/:user/restart", {
          params: { user: action.user },
        });
        if (!answer.ok)
          return fail(`The cell of ${action.user} could not be restarted: ${answer.error.message}`);
        const row = answer.data;
        setState("message", {
          level: row.state === "running" ? "info" : "error",
          text:
            row.state === "running"
              ? `The cell of ${action.user} is running again.`
              : `The cell of ${action.user} did not start: ${row.last_crash?.reason ?? row.state}.`,
        });
        return load();
      }
      case "dismiss-token":
        return void setState("issued", null);
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type AdminController = ReturnType<typeof createAdminController>;
