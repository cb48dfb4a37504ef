import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { RunSummary, Theater } from "../api/command-endpoints.js";
import { createGenerations } from "../shared/generation.js";
import type { NoticeMessage } from "../shared/notice.js";
import { createOpenRun, type LiveOptions } from "./open-run.js";
import {
  checkStart,
  checkTheater,
  type FormRefusal,
  hasFieldProblems,
  type RunField,
  type RunForm,
  refusalOf,
} from "./run-form.js";

export interface RunsState {
  runs: RunSummary[];
  theaters: Theater[];
  loading: boolean;
  form: RunForm;
  startRefusal: FormRefusal | null;
  theaterRefusal: FormRefusal | null;
  busy: "start" | "theater" | "cancel" | null;
  message: NoticeMessage | null;
}

export type RunsAction =
  | { type: "start" }
  | { type: "open"; id: string }
  | { type: "close" }
  | { type: "field"; field: RunField; value: string }
  | { type: "create-theater" }
  | { type: "submit" }
  | { type: "cancel-run" };

const listOf = <T>(data: T[] | Record<string, T[]>, key: string): T[] =>
  Array.isArray(data) ? data : (data[key] ?? []);

/**
 * The runs view: the user's runs, one run's orders kept current from the ledger's event stream, the form that
 * starts a run and has command carry it to its reply (creating its theater inline when there is none) and
 * cancelling a run.
 */
export function createRunsController(api: ApiClient, live: LiveOptions = {}) {
  const [state, setState] = createStore<RunsState>({
    runs: [],
    theaters: [],
    loading: false,
    form: { theater: "", objective: "", newTheater: "", repoPath: "" },
    startRefusal: null,
    theaterRefusal: null,
    busy: null,
    message: null,
  });
  const generations = createGenerations();
  const say = (level: NoticeMessage["level"], text: string) => setState("message", { level, text });
  // The list shows the open run too: its status there follows what the detail learns.
  const open = createOpenRun(api, live, (run) => {
    const at = state.runs.findIndex((r) => r.run_id === run.run_id);
    if (at >= 0) setState("runs", at, { ...run });
  });

  async function loadLists(): Promise<void> {
    const ticket = generations.next("lists");
    setState("loading", true);
    const [runs, theaters] = await Promise.all([api.call("GET /api/runs"), api.call("GET /api/theaters")]);
    if (!generations.isCurrent("lists", ticket)) return;
    setState("loading", false);
    if (!runs.ok) say("error", `Your runs could not load: ${runs.error.message}`);
    else setState("runs", listOf(runs.data, "runs"));
    if (!theaters.ok) return say("error", `The theaters could not load: ${theaters.error.message}`);
    const list = listOf(theaters.data, "theaters");
    setState("theaters", list);
    if (state.form.theater === "" && list[0]) setState("form", "theater", list[0].theater_id);
  }

  async function createTheater(): Promise<void> {
    const checked = checkTheater(state.form);
    if (hasFieldProblems(checked)) return void setState("theaterRefusal", checked);
    setState({ busy: "theater", theaterRefusal: null });
    const repoPath = state.form.repoPath.trim();
    const answer = await api.call("POST /api/theaters", {
      body: { theater_id: state.form.newTheater.trim(), ...(repoPath ? { repo_path: repoPath } : {}) },
    });
    setState("busy", null);
    if (!answer.ok) return void setState("theaterRefusal", refusalOf(answer.error, "theater"));
    setState("form", { theater: answer.data.theater_id, newTheater: "", repoPath: "" });
    say("info", `Theater ${answer.data.theater_id} is ready at ${answer.data.repo_path}.`);
    await loadLists();
  }

  async function submit(): Promise<void> {
    const checked = checkStart(state.form);
    if (hasFieldProblems(checked)) return void setState("startRefusal", checked);
    setState({ busy: "start", startRefusal: null });
    // Command's chat, not a bare POST /api/runs: the warden plans, dispatches, integrates and concludes the run
    // it answers, which the open run then shows as the ledger records each step.
    const answer = await api.call("POST /api/command/chat", {
      body: { theater_hint: state.form.theater, message: state.form.objective.trim(), mode: "async" },
    });
    setState("busy", null);
    if (!answer.ok) return void setState("startRefusal", refusalOf(answer.error, "start"));
    setState("form", "objective", "");
    say("info", `Run ${answer.data.run_id} started: it is being planned into orders.`);
    await loadLists();
    await open.open(answer.data.run_id);
  }

  async function cancelRun(): Promise<void> {
    const id = open.state.id;
    if (!id) return;
    setState("busy", "cancel");
    const answer = await api.call("POST /api/runs/:id/cancel", { params: { id } });
    setState("busy", null);
    if (!answer.ok) say("error", `Run ${id} could not be cancelled: ${answer.error.message}`);
    else say("info", `Run ${id} is cancelled.`);
    await open.reload();
  }

  async function dispatch(action: RunsAction): Promise<void> {
    switch (action.type) {
      case "start":
        return loadLists();
      case "open":
        return open.open(action.id);
      case "close":
        return open.close();
      case "field":
        return void setState("form", action.field, action.value);
      case "create-theater":
        return createTheater();
      case "submit":
        return submit();
      case "cancel-run":
        return cancelRun();
    }
  }

  function dispose(): void {
    open.close();
    generations.invalidateAll();
  }

  return { state, open: open.state, dispatch, dispose };
}

export type RunsController = ReturnType<typeof createRunsController>;
