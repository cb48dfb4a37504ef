import { For, Match, onCleanup, onMount, Show, Switch } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import type { PendingMailSend } from "../api/mail-endpoints.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { SecretForm } from "../shared/secret-form.js";
import { createMailController, MAIL_PASSWORD, type MailController } from "./mail-controller.js";

/** Mail the agent asked to send, waiting for its person: read each as it will leave, then send it or drop it. */
export default function MailView(props: { api: ApiClient }) {
  const mail = createMailController(props.api);
  const { state, dispatch } = mail;
  onMount(() => void dispatch({ type: "start" }));
  onCleanup(() => mail.dispose());
  return (
    <main class="mail-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Mail</h1>
        <div class="row-actions">
          <button type="button" onClick={() => void dispatch({ type: "start" })}>
            Refresh
          </button>
        </div>
      </header>
      <Notice message={state.message} />
      <p class="muted">
        Your agent can search and read your mail and write drafts. It never sends one by itself: what it asks
        to send waits here until you send it.
      </p>
      <Switch>
        <Match when={state.outbox?.mail === "off"}>
          <p class="muted">No mail server is set up on this host ([integrations.mail] in ironclawd.toml).</p>
        </Match>
        <Match when={state.outbox?.mail === "needs_password"}>
          <PasswordForm controller={mail} isSet={false} />
        </Match>
      </Switch>
      <Show when={state.outbox?.mail === "ready" && state.outbox.sends.length === 0}>
        <p class="muted">No mail is waiting for you.</p>
      </Show>
      <For each={state.outbox?.sends ?? []}>{(send) => <SendCard send={send} controller={mail} />}</For>
      <Show when={state.outbox?.mail === "ready"}>
        <PasswordForm controller={mail} isSet={true} />
      </Show>
    </main>
  );
}

function SendCard(props: { send: PendingMailSend; controller: MailController }) {
  const { state, dispatch } = props.controller;
  const s = () => props.send;
  return (
    <article class="card mail-send" data-send={s().id} aria-labelledby={`send-${s().id}`}>
      <h2 id={`send-${s().id}`}>{s().subject || "(no subject)"}</h2>
      <p>
        To <span class="recipients">{s().to.join(", ")}</span>
      </p>
      <pre class="mail-text">{s().text}</pre>
      <Show when={s().truncated}>
        <p class="muted">Only the start of the text is shown; the whole draft is what will be sent.</p>
      </Show>
      <p class="muted">
        Asked {localDateTime(s().created_at)}; dropped unless sent by {localDateTime(s().expires_at)}. A draft
        changed since is not sent.
      </p>
      <div class="row-actions">
        <button
          type="button"
          class="primary"
          disabled={state.busy}
          onClick={() => void dispatch({ type: "confirm", id: s().id })}
        >
          Send
        </button>
        <button
          type="button"
          disabled={state.busy}
          onClick={() => void dispatch({ type: "cancel", id: s().id })}
        >
          Don’t send
        </button>
      </div>
    </article>
  );
}

/** The user's mail password: it goes to the warden once and is never shown again, here or to the agent. */
function PasswordForm(props: { controller: MailController; isSet: boolean }) {
  const { state, dispatch } = props.controller;
  return (
    <SecretForm
      name={MAIL_PASSWORD}
      isSet={props.isSet}
      busy={state.busy}
      save={(value) => dispatch({ type: "set-password", value })}
      actions={{ set: "Set password", replace: "Replace password" }}
    >
      <span>{props.isSet ? "Your mail password is set." : "Add your mail password to use mail."}</span>
    </SecretForm>
  );
}
