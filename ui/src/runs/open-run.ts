import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { OrderSnapshot, RunDetail } from "../api/command-endpoints.js";
import { type FollowState, followLedger, type LedgerEvent, type LedgerFollow } from "../api/ledger-follow.js";
import { createGenerations } from "../shared/generation.js";

/** What integration recorded when an order's gate failed: the reason and the tail of the command's output. */
export interface GateFailure {
  reason: string;
  output: string;
}

export interface OpenRunState {
  id: string | null;
  run: RunDetail | null;
  /** Each order's own snapshot: branch, worktree and integration state, merge commit. */
  orders: Record<string, OrderSnapshot>;
  gates: Record<string, GateFailure>;
  live: { state: FollowState; text: string };
  error: string | null;
}

export interface LiveOptions {
  /** Where the warden is (tests); the page uses its own origin. */
  base?: string;
  fetcher?: typeof fetch;
  minDelayMs?: number;
}

function gateFailureOf(event: LedgerEvent): GateFailure {
  const p = event.payload as { reason?: unknown; output_tail?: unknown; detail?: unknown };
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return { reason: text(p.reason) || "integration failed", output: text(p.output_tail) || text(p.detail) };
}

/**
 * One open run kept current: its snapshot, each order's, and the gate failures integration recorded, refreshed
 * from the ledger's events. However fast events come, one refresh is in flight and at most one more waits,
 * asking again only for the orders the events named.
 */
export function createOpenRun(api: ApiClient, live: LiveOptions, onRun: (run: RunDetail) => void) {
  const [state, setState] = createStore<OpenRunState>({
    ...{ id: null, run: null, orders: {}, gates: {} },
    ...{ live: { state: "stopped", text: "" }, error: null },
  });
  const generations = createGenerations();
  let follow: LedgerFollow | null = null;
  let refreshing: Promise<void> | null = null;
  let again = false;
  const dirty = new Set<string>();

  async function load(id: string, first: boolean): Promise<void> {
    const ticket = generations.next("run");
    const orders = first ? [] : [...dirty];
    dirty.clear();
    const answer = await api.call("GET /api/runs/:id", { params: { id } });
    if (!generations.isCurrent("run", ticket)) return;
    if (!answer.ok) return void setState("error", `Run ${id} could not load: ${answer.error.message}`);
    setState({ run: answer.data, error: null });
    onRun(answer.data);
    const wanted = first ? answer.data.orders.map((o) => o.order_id) : orders;
    await Promise.all([...wanted.map((o) => loadOrder(o, ticket)), first ? loadGates(id, ticket) : null]);
    if (first && generations.isCurrent("run", ticket)) startFollowing(id, answer.data.position);
  }

  async function loadOrder(orderId: string, ticket: number): Promise<void> {
    const answer = await api.call("GET /api/orders/:id", { params: { id: orderId } });
    if (answer.ok && generations.isCurrent("run", ticket)) setState("orders", orderId, answer.data);
  }

  async function loadGates(runId: string, ticket: number): Promise<void> {
    const answer = await api.call("GET /api/ledger/events", {
      query: { run_id: runId, type: "INTEGRATION_FAILED", limit: 1000 },
    });
    if (!answer.ok || !generations.isCurrent("run", ticket)) return;
    for (const event of answer.data.events)
      if (event.order_id) setState("gates", event.order_id, gateFailureOf(event));
  }

  function refresh(id: string): Promise<void> {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    const current: Promise<void> = load(id, false).finally(() => {
      if (refreshing !== current) return;
      refreshing = null;
      if (again && state.id === id) {
        again = false;
        void refresh(id);
      }
    });
    refreshing = current;
    return current;
  }

  function startFollowing(id: string, after: number): void {
    let dropped = false;
    follow = followLedger({
      url: `${live.base ?? ""}/api/ledger/events?follow=true&run_id=${encodeURIComponent(id)}`,
      after,
      ...(live.fetcher ? { fetcher: live.fetcher } : {}),
      ...(live.minDelayMs === undefined ? {} : { minDelayMs: live.minDelayMs }),
      onEvent: (event) => {
        if (event.run_id !== id || state.id !== id) return;
        if (event.order_id) dirty.add(event.order_id);
        if (event.type === "INTEGRATION_FAILED" && event.order_id)
          setState("gates", event.order_id, gateFailureOf(event));
        void refresh(id);
      },
      onState: (s, text) => {
        setState("live", { state: s, text });
        // Back after a drop: the snapshot catches up at once, and the events missed arrive through `after`.
        if (s === "offline") dropped = true;
        if (s === "online" && dropped) {
          dropped = false;
          for (const o of state.run?.orders ?? []) dirty.add(o.order_id);
          void refresh(id);
        }
      },
    });
  }

  function close(): void {
    follow?.close();
    follow = null;
    refreshing = null;
    again = false;
    dirty.clear();
    generations.invalidateAll();
    setState({
      id: null,
      run: null,
      orders: {},
      gates: {},
      live: { state: "stopped", text: "" },
      error: null,
    });
  }

  return {
    state,
    open(id: string): Promise<void> {
      if (state.id === id) return Promise.resolve();
      close();
      setState("id", id);
      return load(id, true);
    },
    close,
    /** After the user changed the run (cancel): everything again, the run and each order. */
    reload(): Promise<void> {
      if (!state.id) return Promise.resolve();
      for (const o of state.run?.orders ?? []) dirty.add(o.order_id);
      return refresh(state.id);
    },
  };
}

export type OpenRun = ReturnType<typeof createOpenRun>;
