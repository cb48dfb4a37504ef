import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import type { AgentInfo, CronJobState } from "../api/endpoints.js";
import { userTimeZone } from "../shared/format.js";
import { createGenerations } from "../shared/generation.js";
import { previewSchedule } from "./cron-schedule.js";

/** What keeps a form from being saved, field by field (the same rules as the warden's, for what it can see). */
export interface FormProblems {
  id?: string;
  schedule: string[];
  prompt?: string;
}

/** The form's problems; none means Save is offered. */
export function checkCronForm(form: CronForm, schedule: ReturnType<typeof previewSchedule>): FormProblems {
  const problems: FormProblems = { schedule: schedule.ok ? [] : schedule.errors };
  const id = form.id.trim();
  if (form.editing === null) {
    if (id === "") problems.id = "Enter a job id, like morning-brief.";
    else if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(id))
      problems.id =
        "A job id starts with a letter or digit and uses only letters, digits, - and _ (at most 64).";
  }
  if (!/\S/.test(form.prompt)) problems.prompt = "Enter the prompt the job runs.";
  return problems;
}

export const hasProblems = (p: FormProblems) =>
  p.id !== undefined || p.prompt !== undefined || p.schedule.length > 0;

export interface CronForm {
  /** The job being edited, or null for a new one. */
  editing: string | null;
  id: string;
  schedule: string;
  timezone: string;
  agent: string;
  prompt: string;
  enabled: boolean;
}

export interface CronState {
  jobs: CronJobState[];
  /** Why cron/jobs.toml does not load (the scheduler keeps the last good schedule). */
  fileError: string;
  loading: boolean;
  agents: AgentInfo["agents"];
  form: CronForm | null;
  /** The warden's refusal of the last save: its message and each problem (line and rule). */
  formError: { message: string; issues: string[] } | null;
  saving: boolean;
  busy: Record<string, boolean>;
  message: { level: "error" | "info"; text: string } | null;
}

export type CronAction =
  | { type: "start" }
  | { type: "new" }
  | { type: "edit"; id: string }
  | { type: "field"; field: keyof Omit<CronForm, "editing" | "enabled">; value: string }
  | { type: "enabled"; value: boolean }
  | { type: "cancel" }
  | { type: "save" }
  | { type: "toggle"; id: string }
  | { type: "run"; id: string }
  | { type: "remove"; id: string };

/** The cron editor: jobs with their state, a form checked as you type, enable/disable, run now, remove. */
export function createCronController(api: ApiClient) {
  const [state, setState] = createStore<CronState>({
    jobs: [],
    fileError: "",
    loading: false,
    agents: [],
    form: null,
    formError: null,
    saving: false,
    busy: {},
    message: null,
  });
  const generations = createGenerations();
  const say = (level: "error" | "info", text: string) => setState("message", { level, text });
  const preview = () => (state.form ? previewSchedule(state.form.schedule, state.form.timezone) : null);
  const problems = () => {
    const schedule = preview();
    return state.form && schedule ? checkCronForm(state.form, schedule) : null;
  };

  async function load(): Promise<void> {
    const ticket = generations.next("list");
    setState("loading", true);
    const answer = await api.call("GET /api/cron/jobs");
    if (!generations.isCurrent("list", ticket)) return;
    setState("loading", false);
    if (!answer.ok) return say("error", `The jobs could not load: ${answer.error.message}`);
    setState({ jobs: answer.data.jobs, fileError: answer.data.file_error ?? "" });
  }

  const bodyOf = (job: CronJobState | CronForm) => ({
    schedule: job.schedule.trim(),
    timezone: job.timezone,
    prompt: job.prompt,
    enabled: job.enabled,
    ...(job.agent ? { agent: job.agent } : {}),
  });

  async function save(): Promise<void> {
    const form = state.form;
    if (!form || state.saving) return;
    // Save is disabled while the form shows a problem; Enter in a field comes here too. The warden still judges
    // what is sent, naming the line of jobs.toml and the rule.
    const found = problems();
    if (found && hasProblems(found)) return;
    setState({ saving: true, formError: null });
    const answer = form.editing
      ? await api.call("PUT /api/cron/jobs/:id", { params: { id: form.editing }, body: bodyOf(form) })
      : await api.call("POST /api/cron/jobs", { body: { id: form.id.trim(), ...bodyOf(form) } });
    setState("saving", false);
    if (!answer.ok) {
      const issues = (answer.error.issues ?? []).map((i) => `${i.path}: ${i.message}`);
      return void setState("formError", { message: answer.error.message, issues });
    }
    setState({ form: null, message: { level: "info", text: `Saved ${answer.data.id} to cron/jobs.toml.` } });
    await load();
  }

  async function withJob(id: string, work: (job: CronJobState) => Promise<void>): Promise<void> {
    const job = state.jobs.find((j) => j.id === id);
    if (!job) return;
    setState("busy", id, true);
    await work(job);
    setState("busy", id, false);
  }

  async function dispatch(action: CronAction): Promise<void> {
    switch (action.type) {
      case "start": {
        void api.call("GET /api/agents").then((a) => a.ok && setState("agents", a.data.agents));
        return load();
      }
      case "new":
        return void setState({
          form: {
            editing: null,
            id: "",
            schedule: "0 7 * * *",
            timezone: userTimeZone(),
            agent: "",
            prompt: "",
            enabled: true,
          },
          formError: null,
        });
      case "edit": {
        const job = state.jobs.find((j) => j.id === action.id);
        if (!job) return;
        return void setState({
          form: { editing: job.id, ...bodyOf(job), agent: job.agent ?? "", id: job.id },
          formError: null,
        });
      }
      case "field":
        return void setState("form", action.field, action.value);
      case "enabled":
        return void setState("form", "enabled", action.value);
      case "cancel":
        return void setState({ form: null, formError: null });
      case "save":
        return save();
      case "toggle":
        return withJob(action.id, async (job) => {
          const answer = await api.call("PUT /api/cron/jobs/:id", {
            params: { id: job.id },
            body: { ...bodyOf(job), enabled: !job.enabled },
          });
          if (!answer.ok) say("error", `${job.id} could not be changed: ${answer.error.message}`);
          await load();
        });
      case "run":
        return withJob(action.id, async (job) => {
          say("info", `Running ${job.id}…`);
          const answer = await api.call("POST /api/cron/jobs/:id/run", { params: { id: job.id } });
          if (!answer.ok) say("error", `${job.id} could not run: ${answer.error.message}`);
          else if (answer.data.status === "failed")
            say("error", `${job.id} failed: ${answer.data.error ?? "no reason given"}`);
          else say("info", `${job.id} ran: the result is in ${answer.data.result_ref ?? "the day's log"}.`);
          await load();
        });
      case "remove":
        return withJob(action.id, async (job) => {
          const answer = await api.call("DELETE /api/cron/jobs/:id", { params: { id: job.id } });
          if (!answer.ok) say("error", `${job.id} could not be removed: ${answer.error.message}`);
          await load();
        });
    }
  }

  return { state, dispatch, preview, problems, dispose: () => generations.invalidateAll() };
}

export type CronController = ReturnType<typeof createCronController>;
