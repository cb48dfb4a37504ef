import { For, Show } from "solid-js";
import { Notice } from "../shared/notice.js";
import type { ForgetController } from "./forget-controller.js";

/** The forget step a person confirms: every passage that would go, with its text, and the two choices. */
export function ForgetPanel(props: { forget: ForgetController }) {
  const { state, dispatch } = props.forget;
  return (
    <>
      <Notice message={state.message} />
      <Show when={state.preview && state.target}>
        <section class="forget-confirm" aria-labelledby="forget-title">
          <h3 id="forget-title">Forget {state.target?.label}?</h3>
          <p>
            These passages will be removed for good from the brain's files, its index and database, and from
            the conversations kept by the warden. Only where they were is kept, by hash.
          </p>
          <ol class="forget-places">
            <For each={state.preview?.places ?? []}>
              {(place, i) => (
                <li>
                  <span class="hit-path">
                    {[place.path, ...place.headings].join(" › ")} (lines {place.start_line}–{place.end_line})
                  </span>
                  <pre class="forget-text">{state.preview?.previews?.[i()] ?? ""}</pre>
                </li>
              )}
            </For>
          </ol>
          <div class="forget-actions">
            <button
              type="button"
              class="danger"
              disabled={state.busy}
              onClick={() => void dispatch({ type: "confirm" })}
            >
              Forget for good
            </button>
            <button type="button" disabled={state.busy} onClick={() => void dispatch({ type: "cancel" })}>
              Cancel
            </button>
          </div>
        </section>
      </Show>
    </>
  );
}
