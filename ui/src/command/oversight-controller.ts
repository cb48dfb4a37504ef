import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { Escalation } from "../api/command-endpoints.js";
import type { LedgerEvent } from "../api/ledger-follow.js";
import { type CommandHealth, HEALTH_EVENT_TYPES, healthOf } from "./command-health.js";

export interface OversightState {
  escalations: Escalation[];
  /** Why escalations cannot be shown (the route is missing or refused), or null. */
  escalationsError: string | null;
  acking: string | null;
  health: CommandHealth | null;
  healthError: string | null;
}

/** How far back the health panel reads the ledger: enough for many patrol periods of a busy host. */
export const HEALTH_WINDOW = 5000;
const PAGE = 1000;

/**
 * Command's own oversight as a person sees it: the open escalations to acknowledge, and the health the ledger
 * records — the duty officer's last PATROL_TICK, services it found degraded, the last CRITICAL escalation. Health
 * is read over the last HEALTH_WINDOW positions of the ledger, which only an admin may read unscoped.
 */
export function createOversightController(api: ApiClient) {
  const [state, setState] = createStore<OversightState>({
    ...{ escalations: [], escalationsError: null, acking: null },
    ...{ health: null, healthError: null },
  });
  let disposed = false;

  async function loadEscalations(): Promise<void> {
    const answer = await api.call("GET /api/escalations", { query: { open: 1 } });
    if (disposed) return;
    if (!answer.ok)
      return void setState("escalationsError", `Escalations are unavailable: ${answer.error.message}`);
    const list = Array.isArray(answer.data) ? answer.data : answer.data.escalations;
    setState({ escalations: list, escalationsError: null });
  }

  async function loadHealth(): Promise<void> {
    const first = await api.call("GET /api/ledger/events", { query: { limit: 1 } });
    if (disposed) return;
    if (!first.ok) return void setState("healthError", `Health is unavailable: ${first.error.message}`);
    const head = first.data.head;
    const events: LedgerEvent[] = [];
    let after = Math.max(0, head - HEALTH_WINDOW);
    while (after < head) {
      const page = await api.call("GET /api/ledger/events", {
        query: { type: HEALTH_EVENT_TYPES, after, limit: PAGE },
      });
      if (disposed) return;
      if (!page.ok) return void setState("healthError", `Health is unavailable: ${page.error.message}`);
      events.push(...page.data.events);
      if (page.data.next_after <= after) break;
      after = page.data.next_after;
    }
    setState({ health: healthOf(events), healthError: null });
  }

  async function ack(id: string): Promise<void> {
    setState("acking", id);
    const answer = await api.call("POST /api/escalations/:id/ack", { params: { id } });
    if (disposed) return;
    setState("acking", null);
    if (!answer.ok)
      return void setState(
        "escalationsError",
        `Escalation ${id} was not acknowledged: ${answer.error.message}`,
      );
    await loadEscalations();
  }

  return {
    state,
    load: () => Promise.all([loadEscalations(), loadHealth()]).then(() => undefined),
    ack,
    dispose: () => {
      disposed = true;
    },
  };
}

export type OversightController = ReturnType<typeof createOversightController>;
