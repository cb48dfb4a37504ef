import { For, Show } from "solid-js";
import { Notice } from "../shared/notice.js";
import type { PromotionController } from "./promotion-controller.js";

/** Pending promotions: the fact, where it came from and how often it was used, with Approve and Reject. */
export function PromotionPanel(props: {
  promotions: PromotionController;
  onOpen(path: string, heading?: string): void;
}) {
  const { state, dispatch } = props.promotions;
  return (
    <section class="promotions" aria-labelledby="promotions-title">
      <h2 id="promotions-title">Proposed for memory.md</h2>
      <Notice message={state.message} />
      <Show when={!state.loading && state.pending.length === 0}>
        <p class="muted">
          Nothing proposed. Facts your agent keeps using from logs and past conversations show up here.
        </p>
      </Show>
      <ol class="hit-list">
        <For each={state.pending}>
          {(p) => (
            <li class="hit promotion" data-promotion={p.id}>
              <button
                type="button"
                class="hit-source"
                onClick={() => props.onOpen(p.path, p.headings.at(-1))}
              >
                <span class="hit-path">{p.path}</span>
              </button>
              <Show when={p.headings.length > 0}>
                <p class="hit-headings">{p.headings.join(" › ")}</p>
              </Show>
              <p class="hit-text">{p.text.length > 400 ? `${p.text.slice(0, 400)}…` : p.text}</p>
              <p class="muted">
                Used in {p.sessions} conversations on {p.days} days.
              </p>
              <div class="row-actions">
                <button
                  type="button"
                  class="primary"
                  disabled={state.deciding !== null}
                  aria-label={`Approve: add to memory.md the fact from ${p.path}`}
                  onClick={() => void dispatch({ type: "decide", id: p.id, decision: "approve" })}
                >
                  Approve
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={state.deciding !== null}
                  aria-label={`Reject the fact from ${p.path}`}
                  onClick={() => void dispatch({ type: "decide", id: p.id, decision: "reject" })}
                >
                  Reject
                </button>
              </div>
            </li>
          )}
        </For>
      </ol>
    </section>
  );
}
