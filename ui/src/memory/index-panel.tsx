import { type JSX, Show } from "solid-js";
import { bytes, relativeTime } from "../shared/format.js";
import type { MemoryController } from "./memory-controller.js";

/** Beside the editor: the index's state (files, chunks, embedder, size), then `children` (the proposals). */
export function IndexPanel(props: { memory: MemoryController; children?: JSX.Element }) {
  const { state } = props.memory;
  return (
    <aside class="index-panel" aria-label="Index and proposals">
      <section class="index-status" aria-labelledby="index-title">
        <h2 id="index-title">Index</h2>
        <Show when={state.status} fallback={<p class="muted">{state.statusError || "Loading…"}</p>}>
          {(s) => (
            <dl class="facts">
              <dt>Files</dt>
              <dd data-fact="files">{s().files}</dd>
              <dt>Chunks</dt>
              <dd data-fact="chunks">{s().chunks}</dd>
              <dt>Embedder</dt>
              <dd>
                {s().embedder ?? "none yet"}
                {s().embedder_stale ? " (stale: the next pass re-embeds)" : ""}
              </dd>
              <dt>Last indexed</dt>
              <dd>{relativeTime(s().last_indexed_at) || "never"}</dd>
              <dt>Database</dt>
              <dd>{bytes(s().database_bytes)}</dd>
            </dl>
          )}
        </Show>
      </section>
      {props.children}
    </aside>
  );
}
