import { createSignal, For, Show } from "solid-js";
import type { MemoryHit, SearchMode } from "../api/endpoints.js";
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

function Hit(props: {
  hit: MemoryHit;
  onOpen(path: string, line: number, endLine: number): void;
  onForget(): void;
}) {
  const h = props.hit;
  return (
    <li class="hit">
      <button
        type="button"
        class="hit-source"
        onClick={() => props.onOpen(h.path, h.start_line, h.end_line)}
        aria-label={`Open ${h.path} at lines ${h.start_line}–${h.end_line}`}
      >
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

/** The search box above the editor. */
export function SearchForm(props: { memory: MemoryController }) {
  const { state, dispatch } = props.memory;
  const [query, setQuery] = createSignal(state.search.query);
  return (
    <form
      class="search-form"
      aria-label="Memory search"
      onSubmit={(e) => {
        e.preventDefault();
        void dispatch({ type: "search", query: query() });
      }}
    >
      <label for="memory-search" class="visually-hidden">
        Search memory
      </label>
      <input
        id="memory-search"
        type="search"
        placeholder="Search memory…"
        value={query()}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      <label for="search-mode" class="visually-hidden">
        Mode
      </label>
      <select
        id="search-mode"
        value={state.search.mode}
        onChange={(e) => void dispatch({ type: "mode", mode: e.currentTarget.value as SearchMode })}
      >
        <option value="hybrid">Hybrid</option>
        <option value="semantic">Semantic only</option>
        <option value="lexical">Lexical only</option>
      </select>
      <button type="submit" class="primary">
        Search
      </button>
      <Show when={!state.search.shown && state.search.done}>
        <button type="button" class="ghost" onClick={() => void dispatch({ type: "results", shown: true })}>
          Back to results ({state.search.hits.length})
        </button>
      </Show>
    </form>
  );
}

/**
 * Hybrid search's hits in the main area, each with its semantic and lexical parts and why it ranks where it
 * does; a hit opens its file at its lines. Forgetting starts here too.
 */
export function SearchResults(props: {
  memory: MemoryController;
  forget: ForgetController;
  onOpen(path: string, line: number, endLine: number): void;
}) {
  const { state, dispatch } = props.memory;
  return (
    <section class="hits" aria-labelledby="hits-title" aria-busy={state.search.loading}>
      <header class="hits-bar">
        <h2 id="hits-title" aria-live="polite">
          {state.search.loading
            ? "Searching…"
            : `${state.search.hits.length} ${state.search.hits.length === 1 ? "passage" : "passages"} for “${state.search.query}”`}
        </h2>
        <button type="button" class="ghost" onClick={() => void dispatch({ type: "results", shown: false })}>
          Close results
        </button>
      </header>
      <Show when={state.search.error}>
        <p class="notice error" role="alert">
          {state.search.error}
        </p>
      </Show>
      <Show
        when={
          state.search.done && !state.search.loading && state.search.hits.length === 0 && !state.search.error
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
  );
}
