// A screen whose code could not be fetched (the warden restarting, the network gone) comes back on its own:
// the boundary around the screens retries when the browser says it is online again, and on a timer that
// backs off, each time first asking whether the missing file can be fetched now.

/** A failed `import()` of a screen's chunk (rspack's ChunkLoadError, or the browser's own wording). */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === "ChunkLoadError" ||
    /Loading (CSS )?chunk .+ failed|Failed to fetch dynamically imported module|error loading dynamically imported module/i.test(
      error.message,
    )
  );
}

/** The address of the file that failed, when the loader says (rspack puts it on `request`). */
export function chunkAddress(error: unknown): string | undefined {
  const request = (error as { request?: unknown } | null)?.request;
  return typeof request === "string" && request !== "" ? request : undefined;
}

export interface ScreenRetryDeps {
  /** True once the screen's files can be fetched again (a request to the failed chunk or the page). */
  probe(): Promise<boolean>;
  /** Renders the screen again. */
  recover(): void;
  /** Where the browser's `online` event arrives (window). */
  events: Pick<EventTarget, "addEventListener" | "removeEventListener">;
  setTimer(run: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
  /** Waits between automatic attempts; the last one repeats. */
  delaysMs?: number[];
}

export interface ScreenRetry {
  /** The person pressed Retry (or the browser came online): probe now, recover if the files are back. */
  retryNow(): Promise<boolean>;
  /** Tries since the screen failed (for the message). */
  attempts(): number;
  dispose(): void;
}

const DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000];

/** Retries a failed screen until its files load: at once when online again, otherwise on a backing-off timer. */
export function createScreenRetry(deps: ScreenRetryDeps): ScreenRetry {
  const delays = deps.delaysMs ?? DELAYS_MS;
  let attempts = 0;
  let timer: unknown;
  let busy = false;
  let disposed = false;

  const schedule = () => {
    if (disposed) return;
    const delay = delays[Math.min(attempts, delays.length - 1)] ?? 15_000;
    timer = deps.setTimer(() => void retryNow(), delay);
  };

  async function retryNow(): Promise<boolean> {
    if (busy || disposed) return false;
    busy = true;
    deps.clearTimer(timer);
    attempts += 1;
    const back = await deps.probe().catch(() => false);
    busy = false;
    if (disposed) return false;
    if (back) {
      dispose();
      deps.recover();
      return true;
    }
    schedule();
    return false;
  }

  const onOnline = () => void retryNow();

  function dispose(): void {
    disposed = true;
    deps.clearTimer(timer);
    deps.events.removeEventListener("online", onOnline);
  }

  deps.events.addEventListener("online", onOnline);
  schedule();
  return { retryNow, attempts: () => attempts, dispose };
}
