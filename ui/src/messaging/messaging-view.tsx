import { For, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { localDateTime } from "../shared/format.js";
import { Notice } from "../shared/notice.js";
import { QrCode } from "../shared/qr-code.js";
import { createMessagingController } from "./messaging-controller.js";

/** Link a messaging app: one code, and how to send it on each channel this warden runs. */
export default function MessagingView(props: { api: ApiClient }) {
  const messaging = createMessagingController(props.api);
  const { state } = messaging;
  onMount(() => void messaging.issue());
  return (
    <main class="messaging-screen" id="main" tabindex="-1">
      <header class="screen-bar">
        <h1>Messaging</h1>
        <button type="button" disabled={state.busy} onClick={() => void messaging.issue()}>
          New code
        </button>
      </header>
      <Notice message={state.message} />
      <Show when={state.pairing}>
        {(pairing) => (
          <section aria-label="Pairing code">
            <p>
              Your pairing code: <code class="pairing-code">{pairing().code}</code>
              <Show when={state.expiresAt}>
                {(at) => (
                  <span class="muted">
                    {" "}
                    — works once, until {localDateTime(new Date(at()).toISOString())}
                  </span>
                )}
              </Show>
            </p>
            <ul class="pairing-channels">
              <For each={pairing().channels}>
                {(c) => (
                  <li>
                    <strong>{c.channel}</strong>:{" "}
                    <For each={withLinks(c.how)}>
                      {(part) => (part.link ? <a href={part.text}>{part.text}</a> : part.text)}
                    </For>
                    <For each={withLinks(c.how).filter((part) => part.link)}>
                      {(part) => (
                        <figure class="pairing-qr">
                          <QrCode text={part.text} label={`QR code of ${part.text}`} />
                          <figcaption class="muted">
                            Scan with your phone to open the bot and pair.
                          </figcaption>
                        </figure>
                      )}
                    </For>
                  </li>
                )}
              </For>
            </ul>
            <p class="muted">
              From then on what you write there goes to your own agent, and your jobs' results and alerts come
              back there. Send /unpair there to undo it.
            </p>
          </section>
        )}
      </Show>
    </main>
  );
}

/** The instruction's Telegram deep link as a link the person can follow; the rest as text. */
function withLinks(text: string): Array<{ text: string; link: boolean }> {
  return text
    .split(/(https:\/\/t\.me\/\w+\?start=[\w-]+)/)
    .filter((part) => part !== "")
    .map((part) => ({ text: part, link: part.startsWith("https://t.me/") }));
}
