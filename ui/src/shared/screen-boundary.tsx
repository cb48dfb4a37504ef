import { createEffect, createSignal, ErrorBoundary, type JSX, on, onCleanup, Show } from "solid-js";
import { chunkAddress, createScreenRetry, isChunkLoadError } from "./screen-retry.js";

/**
 * Around the screens: a screen that throws, or whose code could not be fetched, shows what happened and a
 * Retry instead of leaving the page blank. A screen that failed to load retries by itself until the warden
 * answers again; going to another screen starts afresh.
 */
export function ScreenBoundary(props: { view: string; children: JSX.Element }) {
  return (
    <ErrorBoundary
      fallback={(error: unknown, reset) => (
        <ScreenFailed error={error} view={() => props.view} reset={reset} />
      )}
    >
      {props.children}
    </ErrorBoundary>
  );
}

function ScreenFailed(props: { error: unknown; view: () => string; reset(): void }) {
  const chunk = isChunkLoadError(props.error);
  const [still, setStill] = createSignal(false);
  const retry = chunk
    ? createScreenRetry({
        probe: () =>
          fetch(chunkAddress(props.error) ?? location.href, { cache: "no-store" }).then((r) => r.ok),
        recover: () => props.reset(),
        events: window,
        setTimer: (run, ms) => setTimeout(run, ms),
        clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
      })
    : undefined;
  onCleanup(() => retry?.dispose());
  createEffect(on(props.view, () => props.reset(), { defer: true }));
  const retryNow = async () => {
    if (!retry) return props.reset();
    setStill(false);
    if (!(await retry.retryNow())) setStill(true);
  };
  const detail = props.error instanceof Error ? props.error.message : String(props.error);
  return (
    <main class="screen-failed" id="main" tabindex="-1">
      <div class="card" role="alert" data-failure={chunk ? "load" : "error"}>
        <h1>Couldn't load this screen</h1>
        <Show when={chunk} fallback={<p>It stopped with an error: {detail}</p>}>
          <p>
            The warden did not answer (it may be restarting, or the network is down). This screen opens by
            itself once it answers again.
          </p>
        </Show>
        <Show when={still()}>
          <p class="muted" role="status">
            Still no answer; trying again in a moment.
          </p>
        </Show>
        <div class="form-actions">
          <button type="button" class="primary" onClick={() => void retryNow()}>
            Retry
          </button>
        </div>
      </div>
    </main>
  );
}
