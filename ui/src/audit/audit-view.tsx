import { For, type JSX, onCleanup, onMount, Show } from "solid-js";
import type { ToolKind, ToolOutcome } from "../../../src/contracts/cell/index.js";
import type { ApiClient } from "../api/api-client.js";
import { duration, localDateTime } from "../shared/format.js";
import { type AuditTab, createAuditController } from "./audit-controller.js";

// Records over the contract's unions: a new tool or outcome fails the type check until it is labelled here.
const TOOLS: Record<ToolKind, string> = {
  bash: "bash",
  file: "file",
  browser: "browser",
  memory: "memory",
  command: "command",
  github: "GitHub",
  calendar: "calendar",
  mail: "mail",
  settings: "settings",
};
const OUTCOMES: Record<ToolOutcome, string> = {
  ok: "ok",
  error: "error",
  refused: "refused (policy)",
  denied: "denied (not allowed)",
  invalid: "invalid arguments",
  unknown: "unknown tool",
};
const TABS: Record<AuditTab, string> = { tools: "Tool calls", memory: "Memory writes", warden: "Warden log" };

function Select(props: {
  id: string;
  label: string;
  value: string;
  onChange(v: string): void;
  children: JSX.Element;
}) {
  return (
    <div class="filter">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.children}
      </select>
    </div>
  );
}

/** Audit: what the agent did with its tools, who wrote to its memory, and the warden's security trail. */
export default function AuditView(props: { api: ApiClient }) {
  const audit = createAuditController(props.api);
  const { state, dispatch } = audit;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => audit.dispose());
  const filter = (field: "session" | "tool" | "outcome") => (value: string) =>
    void dispatch({ type: "filter", field, value });
  return (
    <main class="audit-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Audit</h1>
        <fieldset class="tabs">
          <legend class="visually-hidden">Audit trails</legend>
          <For each={Object.entries(TABS) as [AuditTab, string][]}>
            {([tab, label]) => (
              <button
                type="button"
                aria-pressed={state.tab === tab}
                onClick={() => void dispatch({ type: "tab", tab })}
              >
                {label}
              </button>
            )}
          </For>
        </fieldset>
      </header>
      <Show when={state.error}>
        <p class="notice error" role="alert">
          {state.error}
        </p>
      </Show>
      <Show when={state.tab === "tools"}>
        <div class="filters">
          <Select
            id="audit-session"
            label="Session"
            value={state.filter.session}
            onChange={filter("session")}
          >
            <option value="">All sessions</option>
            <For each={state.sessions}>{(s) => <option value={s.id}>{s.title || s.id}</option>}</For>
          </Select>
          <Select id="audit-tool" label="Tool" value={state.filter.tool} onChange={filter("tool")}>
            <option value="">All tools</option>
            <For each={Object.entries(TOOLS)}>
              {([value, label]) => <option value={value}>{label}</option>}
            </For>
          </Select>
          <Select
            id="audit-outcome"
            label="Outcome"
            value={state.filter.outcome}
            onChange={filter("outcome")}
          >
            <option value="">Any outcome</option>
            <For each={Object.entries(OUTCOMES)}>
              {([value, label]) => <option value={value}>{label}</option>}
            </For>
          </Select>
        </div>
        <div class="table-wrap">
          <table class="audit cards" aria-busy={state.loading}>
            <caption class="visually-hidden">Tool calls</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Tool</th>
                <th scope="col">Outcome</th>
                <th scope="col">Took</th>
                <th scope="col">Arguments and result</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={state.tools}
                fallback={
                  <tr>
                    <td colSpan={5} class="muted">
                      No tool calls match.
                    </td>
                  </tr>
                }
              >
                {(entry) => (
                  <tr data-tool={entry.tool} data-outcome={entry.outcome}>
                    <td data-label="When">{localDateTime(entry.ts)}</td>
                    <td data-label="Tool">
                      {entry.tool}
                      <span class="muted job-agent">{entry.agent}</span>
                    </td>
                    <td data-label="Outcome">
                      <span class="status-pill" data-status={entry.is_error ? "failed" : "succeeded"}>
                        {entry.outcome}
                      </span>
                    </td>
                    <td data-label="Took">{duration(entry.duration_ms)}</td>
                    <td data-label="Arguments and result">
                      <details>
                        <summary class="mono">
                          {entry.args.length > 80 ? `${entry.args.slice(0, 80)}…` : entry.args}
                        </summary>
                        <pre class="tool-block">{entry.args}</pre>
                        <pre class="tool-block">{entry.summary}</pre>
                        <p class="muted">
                          session {entry.session_id} · call {entry.call_id}
                        </p>
                      </details>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
      <Show when={state.tab === "memory"}>
        <div class="table-wrap">
          <table class="audit cards">
            <caption class="visually-hidden">Memory writes</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">By</th>
                <th scope="col">What</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={state.writes}
                fallback={
                  <tr>
                    <td colSpan={4} class="muted">
                      No memory writes yet.
                    </td>
                  </tr>
                }
              >
                {(w) => (
                  <tr>
                    <td data-label="When">{localDateTime(w.at)}</td>
                    <td data-label="By">{w.by}</td>
                    <td class="mono" data-label="What">
                      {w.what}
                    </td>
                    <td data-label="Outcome">{w.outcome}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
      <Show when={state.tab === "warden"}>
        <div class="filters">
          <div class="filter">
            <label for="audit-action">Action</label>
            <input
              id="audit-action"
              placeholder="login, brain.write, soul.approved…"
              value={state.wardenAction}
              onChange={(e) => void dispatch({ type: "warden-action", action: e.currentTarget.value.trim() })}
            />
          </div>
        </div>
        <div class="table-wrap">
          <table class="audit cards">
            <caption class="visually-hidden">The warden's audit trail</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={state.warden}
                fallback={
                  <tr>
                    <td colSpan={4} class="muted">
                      Nothing recorded.
                    </td>
                  </tr>
                }
              >
                {(r) => (
                  <tr>
                    <td data-label="When">{localDateTime(r.at)}</td>
                    <td data-label="Action">{r.action}</td>
                    <td data-label="Actor">{r.actor}</td>
                    <td class="mono" data-label="Detail">
                      {JSON.stringify(r.detail)}
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
    </main>
  );
}
