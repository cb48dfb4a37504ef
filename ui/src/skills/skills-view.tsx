import { For, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { InstalledSkill, SkillReview } from "../api/skills-endpoints.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { SecretForm } from "../shared/secret-form.js";
import { SkillReachList } from "./skill-reach.js";
import { createSkillsController, type SkillsController, short } from "./skills-controller.js";
import "./skills.css";

/** The user's skills: what each may reach, adding or updating one with consent, removing one. */
export default function SkillsView(props: { api: ApiClient }) {
  const skills = createSkillsController(props.api);
  const { state, dispatch } = skills;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => skills.dispose());
  let picker: HTMLInputElement | undefined;
  const pick = () => picker?.click();
  return (
    <main class="skills-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Skills</h1>
        <div class="row-actions">
          <input
            ref={picker}
            type="file"
            class="visually-hidden"
            accept=".tar.gz,.tgz,.tar,application/gzip,application/x-tar"
            aria-label="Skill archive (.tar.gz, .tgz or .tar)"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = "";
              if (file) void dispatch({ type: "review", file, filename: file.name });
            }}
          />
          <button type="button" class="primary" disabled={state.busy} onClick={pick}>
            Add a skill
          </button>
          <button type="button" onClick={() => void dispatch({ type: "start" })}>
            Refresh
          </button>
        </div>
      </header>
      <Notice message={state.message} />
      <p class="muted">
        A skill is a folder of instructions and scripts your agent may read. Before one is installed you see
        what it asks for; its secrets stay with the warden and are added only to the requests it declares.
      </p>
      <Show when={state.review}>{(review) => <ConsentPanel review={review()} controller={skills} />}</Show>
      <Show when={state.list?.skills.length === 0}>
        <p class="muted">No skills installed.</p>
      </Show>
      <For each={state.list?.skills ?? []}>
        {(skill) => <SkillCard skill={skill} controller={skills} onUpdate={pick} />}
      </For>
    </main>
  );
}

function ConsentPanel(props: { review: SkillReview; controller: SkillsController }) {
  const { state, dispatch } = props.controller;
  const r = () => props.review;
  return (
    <section class="card consent" aria-labelledby="consent-title">
      <h2 id="consent-title">Install {r().name}?</h2>
      <p>{r().description}</p>
      <Show
        when={r().replaces}
        fallback={
          <p class="muted">
            A new skill ({r().files.length} file(s), {short(r().sha256)}).
          </p>
        }
      >
        {(old) => (
          <p class="replaces">
            Replaces the installed version {short(old().sha256)} (approved {localDateTime(old().approved_at)})
            with {short(r().sha256)}.
          </p>
        )}
      </Show>
      <h3>It asks for</h3>
      <SkillReachList reach={r().reach} />
      <Show when={r().ignored_installers.length > 0}>
        <p class="muted">
          Installers it names are never run here (programs come only from the cell image):{" "}
          {r().ignored_installers.join("; ")}.
        </p>
      </Show>
      <div class="row-actions">
        <button
          type="button"
          class="primary"
          disabled={state.busy}
          onClick={() => void dispatch({ type: "approve" })}
        >
          Approve and install
        </button>
        <button type="button" onClick={() => void dispatch({ type: "cancel-review" })}>
          Cancel
        </button>
      </div>
    </section>
  );
}

function SkillCard(props: { skill: InstalledSkill; controller: SkillsController; onUpdate: () => void }) {
  const { state, dispatch } = props.controller;
  const s = () => props.skill;
  return (
    <article class="card skill" data-skill={s().name} aria-labelledby={`skill-${s().name}`}>
      <header class="skill-head">
        <h2 id={`skill-${s().name}`}>{s().name}</h2>
        <span class="status-pill" data-status={s().available ? "succeeded" : "failed"}>
          {s().available ? "available" : "unavailable"}
        </span>
      </header>
      <Show when={s().unavailable_reason}>{(why) => <p class="notice error">{why()}</p>}</Show>
      <p>{s().description}</p>
      <p class="muted">
        Pinned to <code title={s().sha256}>{short(s().sha256)}</code>, approved by {s().approved_by}{" "}
        {localDateTime(s().approved_at)}.
      </p>
      <SkillReachList reach={s().reach} />
      <For each={s().reach.secrets}>
        {(name) => <SkillSecret name={name} controller={props.controller} />}
      </For>
      <div class="row-actions">
        <Show
          when={state.confirmRemove === s().name}
          fallback={
            <>
              <button type="button" disabled={state.busy} onClick={() => props.onUpdate()}>
                Update…
              </button>
              <button
                type="button"
                class="danger"
                disabled={state.busy}
                onClick={() => void dispatch({ type: "ask-remove", name: s().name })}
              >
                Remove
              </button>
            </>
          }
        >
          <span>Remove {s().name}? Your agent will no longer be offered it.</span>
          <button
            type="button"
            class="danger"
            disabled={state.busy}
            onClick={() => void dispatch({ type: "remove", name: s().name })}
          >
            Yes, remove
          </button>
          <button type="button" onClick={() => void dispatch({ type: "cancel-remove" })}>
            Keep it
          </button>
        </Show>
      </div>
    </article>
  );
}

/** Sets one secret a skill needs: the value goes to the warden once and is never shown again, here or anywhere. */
function SkillSecret(props: { name: string; controller: SkillsController }) {
  const { state, dispatch } = props.controller;
  const isSet = () => state.secretNames.includes(props.name);
  return (
    <SecretForm
      name={props.name}
      isSet={isSet()}
      busy={state.busy}
      save={(value) => dispatch({ type: "set-secret", name: props.name, value })}
      actions={{ set: "Set secret", replace: "Replace secret" }}
    >
      <code>{props.name}</code>
      <span class="status-pill" data-status={isSet() ? "succeeded" : "failed"}>
        {isSet() ? "set" : "not set"}
      </span>
    </SecretForm>
  );
}
