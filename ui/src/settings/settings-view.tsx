import { For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { SettingsProposal } from "../api/settings-endpoints.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { SecretForm } from "../shared/secret-form.js";
import { createSettingsController, type SettingsController } from "./settings-controller.js";

/** When a change holds once confirmed: the warden reads ironclawd.toml at its start, a cell its profiles per turn. */
const EFFECT: Record<SettingsProposal["takes_effect"], string> = {
  restart: "Takes effect when the warden restarts.",
  next_turn: "Takes effect from the agent's next turn.",
  now: "Takes effect at once.",
};

/** Changes to the warden's settings an admin asked their agent for: read the diff, then confirm, reject or revert. */
export default function SettingsView(props: { api: ApiClient; me: string }) {
  const settings = createSettingsController(props.api);
  const { state, dispatch } = settings;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => settings.dispose());
  return (
    <main class="settings-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Settings</h1>
        <div class="row-actions">
          <button type="button" onClick={() => void dispatch({ type: "start" })}>
            Refresh
          </button>
        </div>
      </header>
      <Notice message={state.message} />
      <p class="muted">
        Ask your agent to change the warden's settings ("connect my Slack workspace", "use a cheaper model for
        the research agent", "cap Bob at $5 a day"): it proposes the exact change to ironclawd.toml, a profile
        or a spend cap, and nothing is written until you confirm it here or with /confirm in your paired chat.
      </p>
      <Show when={state.proposals?.length === 0}>
        <p class="muted">No proposals yet.</p>
      </Show>
      <For each={state.proposals ?? []}>
        {(p) => <ProposalCard proposal={p} controller={settings} mine={p.proposed_by === props.me} />}
      </For>
    </main>
  );
}

function ProposalCard(props: { proposal: SettingsProposal; controller: SettingsController; mine: boolean }) {
  const { state, dispatch } = props.controller;
  const p = () => props.proposal;
  const unset = () => p().secrets.filter((s) => !s.set).length > 0;
  return (
    <article class="card settings-proposal" data-proposal={p().id} aria-labelledby={`proposal-${p().id}`}>
      <h2 id={`proposal-${p().id}`}>{p().summary}</h2>
      <p>
        <span class="proposal-status">{p().status}</span> · {p().id} · proposed by {p().proposed_by}{" "}
        {localDateTime(p().created_at)}
      </p>
      <pre class="proposal-diff">{p().diff}</pre>
      <For each={p().secrets}>
        {(secret) => (
          <SecretForm
            name={secret.name}
            isSet={secret.set}
            busy={state.busy}
            save={(value) => dispatch({ type: "set-variable", name: secret.name, value })}
            actions={{ set: "Store secret", replace: "Replace secret" }}
          >
            <span>
              {secret.name}: {secret.set ? "set" : "paste its value here, never into the chat"}
            </span>
          </SecretForm>
        )}
      </For>
      <Show when={p().status === "pending"}>
        <p class="muted">
          {EFFECT[p().takes_effect]} Expires {localDateTime(p().expires_at)}.
          {props.mine ? "" : ` Only ${p().proposed_by} can confirm it.`}
        </p>
        <Show when={props.mine}>
          <div class="row-actions">
            <button
              type="button"
              class="primary"
              disabled={state.busy || unset()}
              onClick={() => void dispatch({ type: "confirm", id: p().id })}
            >
              Confirm
            </button>
            <button
              type="button"
              disabled={state.busy}
              onClick={() => void dispatch({ type: "reject", id: p().id })}
            >
              Reject
            </button>
          </div>
        </Show>
      </Show>
      <Show when={p().status === "applied"}>
        <p class="muted">
          Applied by {p().decided_by} {localDateTime(p().decided_at ?? "")}. {EFFECT[p().takes_effect]}
        </p>
        <div class="row-actions">
          <button
            type="button"
            disabled={state.busy}
            onClick={() => void dispatch({ type: "revert", id: p().id })}
          >
            Revert
          </button>
        </div>
      </Show>
    </article>
  );
}
