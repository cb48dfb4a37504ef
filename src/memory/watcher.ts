import { type FSWatcher, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type BrainLayout, isIndexablePath } from "./brain-layout.js";
import type { IndexRequest } from "./index/index.js";

export interface BrainWatcher {
  close(): void;
}

export interface WatchOptions {
  /** Quiet time after the last change before indexing (`[indexing] watch_debounce_ms`). */
  debounceMs: number;
  onError?: (error: unknown) => void;
  /** More events than this in one second and the watcher stops listening for a while (default 2000). */
  maxEventsPerSecond?: number;
  /** Folders watched at most; deeper or later ones are only seen by full scans (default 2048). */
  maxDirectories?: number;
  /** How long the first pause after a flood lasts; it doubles while floods go on, up to a minute (default 1 s). */
  pauseMs?: number;
}

const MAX_DEPTH = 32;
const MAX_PAUSE_MS = 60_000;

/**
 * Watches the brain and reports changed markdown paths once edits settle, so an editor's burst of writes becomes
 * one indexing request. Events without a file name, on directories, or a watcher error become a full scan, which
 * is cheap: unchanged files are skipped by mtime and size. A steady stream of edits still flushes every ten
 * debounce periods.
 *
 * The brain is written by the agent's tools, so its events are hostile input. Node's recursive watcher (on
 * Linux) does synchronous stats and directory reads per event and holds a watch per file; a loop renaming links
 * kept the event loop busy enough to miss the channel's heartbeats. Here each event costs a set insert, one
 * watch per real folder (links are never entered), folders are (re)read asynchronously after the debounce, and
 * a flood beyond `maxEventsPerSecond` closes every watch (the kernel then stops queueing events) for a pause
 * that doubles while floods go on; what was missed is caught by a full scan when the watches come back.
 */
export function watchBrain(
  brain: BrainLayout,
  onChange: (request: IndexRequest) => void,
  options: WatchOptions,
): BrainWatcher {
  const maxEvents = options.maxEventsPerSecond ?? 2000;
  const maxDirs = options.maxDirectories ?? 2048;
  const basePause = options.pauseMs ?? 1000;
  const watchers = new Map<string, FSWatcher>();
  let paths = new Set<string>();
  let all = false;
  let rescan = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstEventAt = 0;
  let windowStart = 0;
  let windowEvents = 0;
  let pause = basePause;
  let pausedUntil = 0;
  let resume: NodeJS.Timeout | undefined;
  let scanning: Promise<void> = Promise.resolve();
  let closed = false;
  let warnedFull = false;

  const flush = () => {
    timer = undefined;
    const request: IndexRequest = all ? "all" : [...paths];
    paths = new Set();
    all = false;
    if (request === "all" || request.length > 0) onChange(request);
    if (rescan.size > 0 && watchers.size > 0) {
      const dirs = [...rescan];
      rescan = new Set();
      queueScan(dirs);
    }
  };
  const schedule = () => {
    const now = Date.now();
    if (timer === undefined) firstEventAt = now;
    else clearTimeout(timer);
    const overdue = now - firstEventAt >= options.debounceMs * 10;
    timer = setTimeout(flush, overdue ? 0 : options.debounceMs);
  };

  const stopWatching = () => {
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  /** A flood: stop listening, index everything once it settles, and listen again after a pause. */
  const shed = () => {
    stopWatching();
    rescan = new Set();
    all = true;
    schedule();
    const now = Date.now();
    // A flood right after the last pause ended doubles the pause; a quiet spell resets it.
    pause = now - pausedUntil < pause * 2 ? Math.min(pause * 2, MAX_PAUSE_MS) : basePause;
    pausedUntil = now + pause;
    options.onError?.(
      new Error(`more than ${maxEvents} brain events in a second; not watching for ${pause} ms`),
    );
    resume = setTimeout(() => {
      resume = undefined;
      all = true;
      schedule();
      queueScan([""]);
    }, pause);
  };
  const onEvent = (dir: string, filename: string | Buffer | null) => {
    if (closed || resume !== undefined) return;
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      windowEvents = 0;
    }
    if (++windowEvents > maxEvents) return shed();
    const name = filename?.toString();
    const change = classify(name === undefined ? undefined : dir === "" ? name : `${dir}/${name}`);
    if (change === "ignore") return;
    if (change === "all") {
      all = true;
      rescan.add(dir);
    } else paths.add(change);
    schedule();
  };

  const watchDir = (dir: string): boolean => {
    if (watchers.has(dir)) return true;
    if (watchers.size >= maxDirs) {
      if (!warnedFull)
        options.onError?.(new Error(`more than ${maxDirs} brain folders; the rest are not watched`));
      warnedFull = true;
      return false;
    }
    try {
      const watcher = watch(join(brain.root, dir), (_event, filename) => onEvent(dir, filename));
      watcher.on("error", (error) => {
        options.onError?.(error);
        watcher.close();
        if (watchers.get(dir) === watcher) watchers.delete(dir);
        all = true;
        schedule();
      });
      watchers.set(dir, watcher);
      return true;
    } catch {
      // Gone, or not a folder any more: the scan that follows a change sees what is there now.
      return false;
    }
  };
  /** Watches these folders and every real folder below them, reading one folder at a time. */
  const scanTree = async (start: string[]): Promise<void> => {
    const pending = [...start];
    while (pending.length > 0 && !closed && resume === undefined) {
      const dir = pending.pop() as string;
      if (dir.split("/").length > MAX_DEPTH || !watchDir(dir)) continue;
      let entries: Awaited<ReturnType<typeof readdirTypes>>;
      try {
        entries = await readdirTypes(join(brain.root, dir));
      } catch {
        forget(dir);
        continue;
      }
      const present = new Set<string>();
      for (const entry of entries) {
        const child = dir === "" ? entry.name : `${dir}/${entry.name}`;
        // Dirents report links as links: a linked folder is never entered.
        if (!entry.isDirectory() || classify(child) === "ignore" || child === "db") continue;
        present.add(child);
        if (!watchers.has(child)) pending.push(child);
      }
      for (const watched of [...watchers.keys()]) {
        if (watched !== dir && parentOf(watched) === dir && !present.has(watched)) forget(watched);
      }
    }
  };
  const forget = (dir: string) => {
    for (const [watched, w] of watchers) {
      if (watched === dir || (dir !== "" && watched.startsWith(`${dir}/`)) || dir === "") {
        w.close();
        watchers.delete(watched);
      }
    }
  };
  const queueScan = (dirs: string[]) => {
    scanning = scanning.then(() => scanTree(dirs)).catch((error: unknown) => options.onError?.(error));
  };

  queueScan([""]);
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (resume !== undefined) clearTimeout(resume);
      stopWatching();
    },
  };
}

function readdirTypes(dir: string) {
  return readdir(dir, { withFileTypes: true });
}

function parentOf(dir: string): string {
  const slash = dir.lastIndexOf("/");
  return slash === -1 ? "" : dir.slice(0, slash);
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
