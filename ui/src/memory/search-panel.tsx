import { createSignal, For, type JSX, Show } from "solid-js";
import type { MemoryHit, SearchMode } from "../api/endpoints.js";
import { bytes, relativeTime } from "../shared/format.js";
import type { ForgetController } from "./forget-controller.js";
import { ForgetPanel } from "./forget-panel.js";
import type { MemoryController } from "./memory-controller.js";

const pct = (n: number) => `${Math.round(Math.max(0, Math.min(1, n)) * 100)}%`;

/** One score as a labelled meter, so the parts of a ranking can be compared at a glance. */
function Score(props: { label: string; value: number; detail: string }) {
  return (
    <div class="score">
      <span class="score-label">{props.label}</span>
      <meter min={0} max={1} value={props.value} aria-label={`${props.label} ${pct(props.value)}`} />
      <span class="score-value">{props.detail}</span>
    </div>
  );
}

function Hit(props: { hit: MemoryHit; onOpen(path: string, line: number): void; onForget(): void }) {
  const h = props.hit;
  return (
    <li class="hit">
      <button type="button" class="hit-source" onClick={() => props.onOpen(h.path, h.start_line)}>
        <span class="hit-path">{h.path}</span>
        <span class="hit-lines">
          lines {h.start_line}–{h.end_line}
        </span>
      </button>
      <Show when={h.headings.length > 0}>
        <p class="hit-headings">{h.headings.join(" › ")}</p>
      </Show>
      <p class="hit-text">{h.text.length > 400 ? `${h.text.slice(0, 400)}…` : h.text}</p>
      <div class="scores">
        <Score label="Combined" value={h.score} detail={h.score.toFixed(3)} />
        <Score
          label="Semantic"
          value={h.semantic.score}
          detail={h.semantic.similarity === null ? "not run" : `cos ${h.semantic.similarity.toFixed(3)}`}
        />
        <Score
          label="Lexical"
          value={h.lexical.score}
          detail={h.lexical.bm25 === null ? "no match" : `bm25 ${h.lexical.bm25.toFixed(2)}`}
        />
      </div>
      <Show when={h.explanation}>
        {(e) => (
          <p class="hit-why" title="How this passage got its place">
            {e().summary}
          </p>
        )}
      </Show>
      <button type="button" class="hit-forget" onClick={() => props.onForget()}>
        Forget…
      </button>
    </li>
  );
}

/** Index status and hybrid search: why the agent would recall what it recalls (and `children` after the index). */
export function SearchPanel(props: {
  memory: MemoryController;
  forget: ForgetController;
  onOpen(path: string, line: number): void;
  children?: JSX.Element;
}) {
  const { state, dispatch } = props.memory;
  const [query, setQuery] = createSignal("");
  return (
    <aside class="search-panel" aria-label="Index and search">
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
      <form
        class="search-form"
        aria-label="Memory search"
        onSubmit={(e) => {
          e.preventDefault();
          void dispatch({ type: "search", query: query() });
        }}
      >
        <label for="memory-search">Search memory</label>
        <div class="search-row">
          <input
            id="memory-search"
            type="search"
            value={query()}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
          <button type="submit" class="primary">
            Search
          </button>
        </div>
        <label for="search-mode">Mode</label>
        <select
          id="search-mode"
          value={state.search.mode}
          onChange={(e) => void dispatch({ type: "mode", mode: e.currentTarget.value as SearchMode })}
        >
          <option value="hybrid">Hybrid (semantic + lexical)</option>
          <option value="semantic">Semantic only</option>
          <option value="lexical">Lexical only</option>
        </select>
      </form>
      <section class="hits" aria-live="polite" aria-busy={state.search.loading}>
        <Show when={state.search.error}>
          <p class="notice error" role="alert">
            {state.search.error}
          </p>
        </Show>
        <Show
          when={
            state.search.done &&
            !state.search.loading &&
            state.search.hits.length === 0 &&
            !state.search.error
          }
        >
          <p class="muted">Nothing in memory matches.</p>
        </Show>
        <ForgetPanel forget={props.forget} />
        <Show when={state.search.hits.length > 0 && !props.forget.state.preview}>
          <button
            type="button"
            class="forget-query"
            onClick={() =>
              void props.forget.dispatch({
                type: "preview",
                target: state.search.query,
                label: `every passage with all of “${state.search.query}”`,
              })
            }
          >
            Forget everything with these words…
          </button>
        </Show>
        <ol class="hit-list">
          <For each={state.search.hits}>
            {(hit) => (
              <Hit
                hit={hit}
                onOpen={props.onOpen}
                onForget={() =>
                  void props.forget.dispatch({
                    type: "preview",
                    target: hit.id,
                    label: `this passage of ${hit.path}`,
                  })
                }
              />
            )}
          </For>
        </ol>
      </section>
    </aside>
  );
}
