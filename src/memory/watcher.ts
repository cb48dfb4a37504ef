import { type FSWatcher, watch } from "node:fs";
import { type BrainLayout, isIndexablePath } from "./brain-layout.js";
import type { IndexRequest } from "./index-queue.js";

export interface BrainWatcher {
  close(): void;
}

export interface WatchOptions {
  /** Quiet time after the last change before indexing (`[indexing] watch_debounce_ms`). */
  debounceMs: number;
  onError?: (error: unknown) => void;
}

/**
 * Watches the brain recursively and reports changed markdown paths once edits settle, so an editor's burst of
 * writes becomes one indexing request. Events without a file name, on directories, or a watcher error become a
 * full scan, which is cheap: unchanged files are skipped by mtime and size. A steady stream of edits still
 * flushes every ten debounce periods.
 */
export function watchBrain(
  brain: BrainLayout,
  onChange: (request: IndexRequest) => void,
  options: WatchOptions,
): BrainWatcher {
  let paths = new Set<string>();
  let all = false;
  let timer: NodeJS.Timeout | undefined;
  let firstEventAt = 0;
  const flush = () => {
    timer = undefined;
    const request: IndexRequest = all ? "all" : [...paths];
    paths = new Set();
    all = false;
    if (request === "all" || request.length > 0) onChange(request);
  };
  const schedule = () => {
    const now = Date.now();
    if (timer === undefined) firstEventAt = now;
    else clearTimeout(timer);
    const overdue = now - firstEventAt >= options.debounceMs * 10;
    timer = setTimeout(flush, overdue ? 0 : options.debounceMs);
  };
  const watcher: FSWatcher = watch(brain.root, { recursive: true }, (_event, filename) => {
    const change = classify(filename?.toString().split("\\").join("/"));
    if (change === "ignore") return;
    if (change === "all") all = true;
    else paths.add(change);
    schedule();
  });
  watcher.on("error", (error) => {
    options.onError?.(error);
    all = true;
    schedule();
  });
  return {
    close() {
      if (timer !== undefined) clearTimeout(timer);
      watcher.close();
    },
  };
}

/** A markdown path to re-index, "all" for a full scan, or "ignore" (the database, hidden files, other files). */
function classify(path: string | undefined): string | "all" | "ignore" {
  if (path === undefined) return "all";
  if (path === "db" || path.startsWith("db/") || path.split("/").some((s) => s.startsWith(".")))
    return "ignore";
  if (isIndexablePath(path)) return path;
  // No extension: most likely a directory, and files may have moved in or out with it.
  return /\.[^/]+$/.test(path) ? "ignore" : "all";
}
