import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { BudgetAlert, BudgetOverview, UsageReport } from "../api/endpoints.js";
import { createGenerations } from "../shared/generation.js";
import { type DaySpend, daysEndingOn, fillDays, todayIn } from "./spend-days.js";

/** How many days the chart shows, ending today in the user's time zone. */
export const CHART_DAYS = 30;
const ALERTS_SHOWN = 10;

export interface UsageState {
  /** Whose usage an admin is looking at; "" is their own. */
  user: string;
  users: string[];
  days: DaySpend[];
  overview: BudgetOverview | null;
  byModel: UsageReport | null;
  alerts: BudgetAlert[];
  loading: boolean;
  error: string;
}

export type UsageAction = { type: "start"; admin: boolean } | { type: "user"; user: string };

/** Usage: spend per day against the caps, the caps' current windows, spend by model, and recent alerts. */
export function createUsageController(api: ApiClient, now: () => Date = () => new Date()) {
  const [state, setState] = createStore<UsageState>({
    user: "",
    users: [],
    days: [],
    overview: null,
    byModel: null,
    alerts: [],
    loading: false,
    error: "",
  });
  const generations = createGenerations();

  async function load(): Promise<void> {
    const ticket = generations.next("load");
    setState({ loading: true, error: "" });
    const who = state.user ? { user: state.user } : {};
    // The overview names the user's time zone, which decides where "today" ends.
    const overview = await api.call("GET /api/budgets", { query: who });
    if (!generations.isCurrent("load", ticket)) return;
    if (!overview.ok) {
      setState({ loading: false, error: overview.error.message });
      return;
    }
    const days = daysEndingOn(todayIn(overview.data.time_zone, now()), CHART_DAYS);
    const range = { ...who, since: days[0] ?? "", until: days.at(-1) ?? "" };
    const [byDay, byModel, alerts] = await Promise.all([
      api.call("GET /api/usage", { query: { ...range, by: "day" } }),
      api.call("GET /api/usage", { query: { ...range, by: "model" } }),
      api.call("GET /api/budgets/alerts", { query: { ...who, limit: 1000 } }),
    ]);
    if (!generations.isCurrent("load", ticket)) return;
    const failed = [byDay, byModel, alerts].find((a) => !a.ok);
    setState({
      loading: false,
      overview: overview.data,
      days: byDay.ok ? fillDays(days, byDay.data.rows) : [],
      byModel: byModel.ok ? byModel.data : null,
      // Oldest first from the warden; the page shows the newest first.
      alerts: alerts.ok ? alerts.data.slice(-ALERTS_SHOWN).reverse() : [],
      error: failed && !failed.ok ? `Not everything could load: ${failed.error.message}` : "",
    });
  }

  async function loadUsers(): Promise<void> {
    const answer = await api.call("GET /api/users");
    if (answer.ok)
      setState(
        "users",
        answer.data.map((u) => u.id),
      );
  }

  async function dispatch(action: UsageAction): Promise<void> {
    switch (action.type) {
      case "start":
        if (action.admin) void loadUsers();
        return load();
      case "user":
        setState("user", action.user);
        return load();
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}
