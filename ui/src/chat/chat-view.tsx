import { createEffect, For, on, onCleanup, onMount, Show } from "solid-js";
import type { ApiClient } from "../api/api-client.js";
import { createLiveSocket } from "../api/live-socket.js";
import { createCertificateController } from "./certificate-controller.js";
import { createChatController } from "./chat-controller.js";
import { Composer } from "./composer.js";
import { createFeedbackController } from "./feedback-controller.js";
import { MessageList } from "./message-list.js";
import { SessionList } from "./session-list.js";

/** The chat screen: conversations on the side, the open one with its composer, the agent picker above. */
export function ChatView(props: { api: ApiClient }) {
  const chat = createChatController({
    api: props.api,
    openSocket: (handlers) => createLiveSocket(handlers),
    storage: localStorage,
  });
  const { state, dispatch } = chat;
  const certificates = createCertificateController(props.api);
  const feedback = createFeedbackController(props.api);
  createEffect(
    on(
      () => state.sessionId,
      (sessionId) => {
        void certificates.dispatch({ type: "load", sessionId });
        void feedback.dispatch({ type: "load", sessionId });
      },
    ),
  );
  // A turn that ends is certified shortly after: its reply gets its certificate once the warden lists it.
  createEffect(
    on(
      () => state.turn,
      (turn, before) => {
        const sessionId = state.sessionId;
        if (turn || !before || !sessionId) return;
        void certificates.dispatch({ type: "follow", sessionId }).then((seq) => {
          if (seq !== undefined && state.sessionId === sessionId) void dispatch({ type: "mark-stored", seq });
        });
      },
    ),
  );
  // Esc stops the answer being written, from anywhere on the screen but a field that uses Esc itself.
  const stopOnEscape = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || e.defaultPrevented || !state.turn || state.turn.stopping) return;
    if (e.target instanceof Element && e.target.closest(".session-rename, dialog")) return;
    e.preventDefault();
    void dispatch({ type: "stop" });
  };
  onMount(() => {
    void dispatch({ type: "start" });
    document.addEventListener("keydown", stopOnEscape);
  });
  onCleanup(() => {
    document.removeEventListener("keydown", stopOnEscape);
    chat.dispose();
    certificates.dispose();
    feedback.dispose();
  });
  return (
    <div class="chat-screen">
      <SessionList
        sessions={state.sessions}
        current={state.sessionId}
        onOpen={(sessionId) => void dispatch({ type: "open", sessionId })}
        onNew={() => void dispatch({ type: "new" })}
        onDelete={(sessionId) => void dispatch({ type: "delete", sessionId })}
        onRename={(sessionId, title) => void dispatch({ type: "rename", sessionId, title })}
      />
      <main class="chat" id="main" tabindex="-1">
        <header class="chat-bar">
          <div class="agent-picker">
            <label for="agent">Agent</label>
            <select
              id="agent"
              value={state.agent}
              disabled={state.agents.length === 0}
              onChange={(e) => void dispatch({ type: "pick-agent", agent: e.currentTarget.value })}
            >
              <Show when={state.agents.length === 0}>
                <option value="">Starting your agent…</option>
              </Show>
              <For each={state.agents}>
                {(agent) => (
                  <option value={agent.name}>
                    {agent.name} · {agent.model}
                  </option>
                )}
              </For>
            </select>
          </div>
          <span class="connection" role="status" data-state={state.connection}>
            {state.connectionText}
          </span>
        </header>
        <Show when={state.problem}>
          <div class="notice error" role="alert">
            {state.problem}
          </div>
        </Show>
        <MessageList
          items={state.items}
          loading={state.loading}
          working={state.turn !== null}
          onRetry={(key) => void dispatch({ type: "retry", key })}
          certificates={certificates}
          feedback={feedback}
        />
        <Composer
          working={state.turn !== null}
          stopping={state.turn?.stopping ?? false}
          onSend={(text) => dispatch({ type: "send", text })}
          onStop={() => void dispatch({ type: "stop" })}
        />
      </main>
    </div>
  );
}
