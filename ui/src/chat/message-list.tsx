import { createEffect, For, Match, Show, Switch } from "solid-js";
import { isLongMessage } from "../shared/collapse.js";
import { Collapsible } from "../shared/collapsible.js";
import { haltedNotice } from "../soul/halted-notice.js";
import { AnswerView } from "./answer-view.js";
import type { CertificateController } from "./certificate-controller.js";
import { CertificatePanel } from "./certificate-panel.js";
import type { ChatItem } from "./chat-items.js";
import { FeedbackControl } from "./feedback-control.js";
import type { FeedbackController } from "./feedback-controller.js";
import { ToolCallView } from "./tool-call.js";

/**
 * The conversation pane. New content follows the bottom unless the reader has scrolled up. A streaming
 * answer is a polite live region, busy until done, so a screen reader reads the finished text.
 */
export function MessageList(props: {
  items: ChatItem[];
  loading: boolean;
  working: boolean;
  /** Sends a failed turn's message again (the notice's key). */
  onRetry?: (key: string) => void;
  /** The certificates of the conversation's replies: a certified reply offers its own. */
  certificates?: CertificateController;
  /** Thumbs up or down on each stored reply, recorded for evolution. */
  feedback?: FeedbackController;
}) {
  let pane!: HTMLElement;
  let stick = true;
  const nearBottom = () => pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
  createEffect(() => {
    // Track every change of the last item's text too, not only new items.
    const last = props.items.at(-1);
    void (last && "text" in last ? last.text : props.items.length);
    void props.working;
    if (stick) queueMicrotask(() => pane.scrollTo({ top: pane.scrollHeight }));
  });
  return (
    <section
      ref={pane}
      class="messages"
      aria-label="Conversation"
      aria-busy={props.loading}
      onScroll={() => {
        stick = nearBottom();
      }}
    >
      <Show when={!props.loading && props.items.length === 0}>
        <div class="empty">
          <h2>What can I help with?</h2>
          <p class="muted">Your agent runs in its own cell. Conversations are kept on this server.</p>
        </div>
      </Show>
      <For each={props.items}>
        {(item) => (
          <Switch>
            <Match when={item.kind === "user" && item}>
              {(user) => (
                <article class="message user" aria-label="You">
                  <Collapsible long={isLongMessage(user().text)} text={user().text}>
                    <div class="body">{user().text}</div>
                  </Collapsible>
                </article>
              )}
            </Match>
            <Match when={item.kind === "assistant" && item}>
              {(answer) => (
                <article
                  class="message assistant"
                  aria-label="Agent"
                  aria-live={answer().streaming ? "polite" : undefined}
                  aria-busy={answer().streaming}
                  data-streaming={answer().streaming ? "true" : "false"}
                  data-stopped={answer().stopped ? "true" : undefined}
                >
                  <Collapsible
                    long={!answer().streaming && isLongMessage(answer().text)}
                    text={answer().text}
                  >
                    <AnswerView class="body markdown" text={answer().text} />
                  </Collapsible>
                  <CertificateControl item={answer()} certificates={props.certificates} />
                  <Show when={!answer().streaming && answer().seq !== undefined && props.feedback}>
                    {(feedback) => <FeedbackControl seq={answer().seq as number} feedback={feedback()} />}
                  </Show>
                </article>
              )}
            </Match>
            <Match when={item.kind === "tool" && item}>{(tool) => <ToolCallView item={tool()} />}</Match>
            <Match when={item.kind === "notice" && item}>
              {(n) => (
                <div class={`notice ${n().level}`} role={n().level === "error" ? "alert" : "status"}>
                  <Show when={haltedNotice(n().text)} fallback={n().text}>
                    {(halted) => (
                      <>
                        {halted().text} <a href={halted().href}>Open the Soul guard screen</a>
                      </>
                    )}
                  </Show>
                  <Show when={n().retry !== undefined && props.onRetry}>
                    <button
                      type="button"
                      class="retry"
                      disabled={props.working}
                      onClick={() => props.onRetry?.(n().key)}
                    >
                      Retry
                    </button>
                  </Show>
                </div>
              )}
            </Match>
          </Switch>
        )}
      </For>
      <Show when={props.working}>
        <div class="typing" role="status">
          <span class="dot" />
          <span class="dot" />
          <span class="dot" />
          <span class="visually-hidden">The agent is working…</span>
        </div>
      </Show>
    </section>
  );
}

/** A certified reply's "certificate" button, and its certificate under it once opened. */
function CertificateControl(props: {
  item: Extract<ChatItem, { kind: "assistant" }>;
  certificates: CertificateController | undefined;
}) {
  const seq = () => props.item.seq;
  const certified = () => {
    const at = seq();
    return at !== undefined && props.certificates?.state.bySeq[at] !== undefined;
  };
  const open = () => props.certificates?.state.shown?.seq === seq();
  return (
    <Show when={certified() && props.certificates}>
      {(certificates) => (
        <>
          <button
            type="button"
            class="certificate-toggle"
            aria-expanded={open()}
            onClick={() =>
              void certificates().dispatch(
                open() ? { type: "close" } : { type: "show", seq: seq() as number },
              )
            }
          >
            certificate
          </button>
          <Show when={open()}>
            <CertificatePanel certificates={certificates()} />
          </Show>
        </>
      )}
    </Show>
  );
}
