import { createSignal, For, Show } from "solid-js";
import type { Session } from "../api/endpoints.js";
import { relativeTime } from "../shared/format.js";

export interface SessionListProps {
  sessions: Session[];
  current: string | null;
  onOpen(id: string): void;
  onNew(): void;
  onDelete(id: string): void;
  onRename(id: string, title: string): void;
}

/** The conversations, newest first, with their titles; each can be opened, renamed or deleted. */
export function SessionList(props: SessionListProps) {
  const [editing, setEditing] = createSignal<string | null>(null);
  const [confirming, setConfirming] = createSignal<string | null>(null);
  return (
    <nav class="sessions-pane" aria-label="Conversations">
      <button type="button" class="primary new-chat" onClick={() => props.onNew()}>
        New chat
      </button>
      <Show when={props.sessions.length === 0}>
        <p class="muted sessions-empty">No conversations yet.</p>
      </Show>
      <ul class="sessions">
        <For each={props.sessions}>
          {(session) => {
            const title = () => session.title || "Untitled conversation";
            return (
              <li class="session" classList={{ current: session.id === props.current }}>
                <Show
                  when={editing() === session.id}
                  fallback={
                    <button
                      type="button"
                      class="session-open"
                      aria-current={session.id === props.current ? "page" : undefined}
                      title={title()}
                      onClick={() => props.onOpen(session.id)}
                    >
                      <span class="session-title">{title()}</span>
                      <time class="session-time" datetime={session.updatedAt}>
                        {relativeTime(session.updatedAt)}
                      </time>
                    </button>
                  }
                >
                  <form
                    class="session-rename"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const input = e.currentTarget.elements.namedItem("title") as HTMLInputElement;
                      props.onRename(session.id, input.value);
                      setEditing(null);
                    }}
                  >
                    <label class="visually-hidden" for={`rename-${session.id}`}>
                      New title
                    </label>
                    <input
                      id={`rename-${session.id}`}
                      name="title"
                      value={title()}
                      ref={(el) => queueMicrotask(() => el.select())}
                      onKeyDown={(e) => e.key === "Escape" && setEditing(null)}
                    />
                  </form>
                </Show>
                <Show
                  when={confirming() === session.id}
                  fallback={
                    <span class="session-actions">
                      <button
                        type="button"
                        class="icon"
                        aria-label={`Rename “${title()}”`}
                        onClick={() => setEditing(session.id)}
                      >
                        ✎
                      </button>
                      <button
                        type="button"
                        class="icon"
                        aria-label={`Delete “${title()}”`}
                        onClick={() => setConfirming(session.id)}
                      >
                        ×
                      </button>
                    </span>
                  }
                >
                  <span class="session-actions confirm">
                    <button
                      type="button"
                      class="danger"
                      onClick={() => {
                        setConfirming(null);
                        props.onDelete(session.id);
                      }}
                    >
                      Delete
                    </button>
                    <button type="button" class="ghost" onClick={() => setConfirming(null)}>
                      Keep
                    </button>
                  </span>
                </Show>
              </li>
            );
          }}
        </For>
      </ul>
    </nav>
  );
}
