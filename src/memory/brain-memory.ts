import { statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createLogger, type Logger } from "../core/index.js";
import { loadMemorySettings, type MemorySettings } from "./brain-config.js";
import type { SkippedFile } from "./brain-files.js";
import { BrainLayout } from "./brain-layout.js";
import { type CompactionInput, type CompactionOutcome, flushBeforeCompaction } from "./compaction.js";
import type { CompactionLog } from "./compaction-log.js";
import { type Embedder, embedderKey } from "./embedders/embedder.js";
import { createEmbedder, type RemoteEmbedderFactory } from "./embedders/embedder-factory.js";
import {
  applyForget,
  type Correction,
  type CorrectionResult,
  correctFact,
  type ForgetOptions,
  type ForgetOutcome,
  type ForgetTarget,
  planForget,
  purgeDeletedText,
} from "./forget/index.js";
import {
  Indexer,
  IndexQueue,
  type IndexReport,
  type IndexRequest,
  IndexStore,
  type IndexWorkerMode,
  type PassOptions,
} from "./index/index.js";
import { appendEntry, type Remembered, type RememberOptions } from "./remember.js";
import { HybridSearch, type SearchHit, type SearchOptions } from "./search/index.js";
import { appendTranscriptTurn, type TranscriptTurn } from "./transcript-file.js";
import type { VectorIndexTuning } from "./vector/index.js";
import { type BrainWatcher, watchBrain } from "./watcher.js";

export type { ForgetOptions, ForgetOutcome } from "./forget/index.js";

export interface BrainMemoryOptions {
  /** Overrides the embedder `[indexing]` would create. */
  embedder?: Embedder;
  /** Makes the embedder when `[indexing]` asks for a provider's (pass providers' `OpenAiEmbedder.create`). */
  remoteEmbedder?: RemoteEmbedderFactory;
  /** Where the built-in embedder's word table is cached (default: IRONCLAW_HOME). */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Whose `[retrieval]` settings apply (default: the config's default_agent). */
  agent?: string;
  tuning?: Partial<VectorIndexTuning>;
  logger?: Logger;
  /** Whether large indexing passes read and embed on a worker thread (IndexerOptions.worker); default "auto". */
  indexWorker?: IndexWorkerMode;
}

export interface MemoryStatus {
  brain: string;
  database: string;
  databaseBytes: number;
  files: number;
  chunks: number;
  embedder: string | null;
  /** True when the configured embedder differs from the one that built the vectors (an index pass re-embeds). */
  embedderStale: boolean;
  vectorLists: number;
  compactions: number;
  lastIndexedAt: string | null;
  /** Files the index passes left out and why (too large, a link, not a regular file), until indexed again. */
  skipped: SkippedFile[];
}

/**
 * One brain's memory (seed 003 §5–8): the index, hybrid search, `remember`/`recall`, the watcher and the
 * pre-compaction flush, wired to the brain's config. Indexing runs through one queue, so `recall` first waits
 * for whatever `remember` queued and always sees it.
 */
export class BrainMemory {
  readonly indexer: Indexer;
  readonly searcher: HybridSearch;
  readonly compactions: CompactionLog;
  private readonly queue: IndexQueue;
  private watcher: BrainWatcher | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly skipped = new Map<string, string>();
  // Appends and rewrites of brain files from this process, one at a time: a forget's rewrite must never drop
  // a transcript turn appended between its read and its rename.
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly brain: BrainLayout,
    readonly store: IndexStore,
    readonly embedder: Embedder,
    readonly settings: MemorySettings,
    private readonly logger: Logger,
    indexWorker: IndexWorkerMode,
  ) {
    this.indexer = new Indexer(brain, store, embedder, {
      maxBytes: settings.indexing.chunk_max_bytes,
      worker: indexWorker,
    });
    this.searcher = new HybridSearch(store, embedder, settings.retrieval);
    this.compactions = store.compactions;
    this.queue = new IndexQueue(
      (request) => this.runPass(request),
      (error) => this.logger.error({ err: error }, "indexing failed; the files stay as last indexed"),
    );
  }

  static async open(dir: string, options: BrainMemoryOptions = {}): Promise<BrainMemory> {
    const brain = BrainLayout.open(dir);
    const settings = loadMemorySettings(brain, options.agent);
    const env = options.env ?? process.env;
    const embedder =
      options.embedder ??
      (await createEmbedder(settings, {
        env,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        ...(options.remoteEmbedder ? { remoteEmbedder: options.remoteEmbedder } : {}),
        configFile: brain.resolve("config/irowclaw.toml"),
      }));
    await mkdir(dirname(brain.databaseFile), { recursive: true });
    const store = IndexStore.open(brain.databaseFile, options.tuning ? { tuning: options.tuning } : {});
    const logger = options.logger ?? createLogger("memory");
    return new BrainMemory(brain, store, embedder, settings, logger, options.indexWorker ?? "auto");
  }

  /** Indexes the brain now (incrementally) and returns what changed. */
  index(options: PassOptions = {}): Promise<IndexReport> {
    return this.exclusive(() => this.indexer.indexAll(options)).then((r) => this.noteSkipped(r, "all"));
  }

  /** Rebuilds the index from the markdown (vectors come from the cache where the text is unchanged). */
  reindex(options: PassOptions = {}): Promise<IndexReport> {
    return this.exclusive(() => this.indexer.rebuild(options)).then((r) => this.noteSkipped(r, "all"));
  }

  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.searcher.search(query, options);
  }

  /** memorytool `remember(text)`: appends to the daily log or memory.md and queues the file for indexing. */
  async remember(text: string, options: RememberOptions = {}): Promise<Remembered> {
    const remembered = await this.serialWrite(() => appendEntry(this.brain, text, options));
    this.queue.request([remembered.path]);
    return remembered;
  }

  /** Appends one turn to a session's transcript (`sessions/YYYY-MM-DD/<id>.md`) and queues it for indexing. */
  async recordTurn(path: string, turn: TranscriptTurn): Promise<Remembered> {
    const written = await this.serialWrite(() => appendTranscriptTurn(this.brain, path, turn));
    this.queue.request([path]);
    return written;
  }

  /**
   * Removes what `target` matches from the markdown (the source of truth), reindexes those files and purges the
   * deleted text from the database file. With `apply: false` it only reports what would go.
   */
  async forget(target: ForgetTarget, options: ForgetOptions): Promise<ForgetOutcome> {
    await this.queue.flush();
    return this.serialWrite(() =>
      this.exclusive(async (): Promise<ForgetOutcome> => {
        const plan = await planForget(this.brain, this.store, target);
        if (!options.apply) return { ...plan, applied: false };
        const applied = plan.files.length > 0;
        if (applied) {
          await this.indexer.indexPaths(await applyForget(this.brain, plan));
          options.beforePurge?.(plan);
        }
        // Also when nothing matched: forgetting again is how a purge that could not run before is retried.
        try {
          return { ...plan, applied, purgeMs: purgeDeletedText(this.store.file).ms };
        } catch (error) {
          // The text is gone from the files and the index rows; only free pages may still hold it.
          this.logger.warn({ err: error }, "the database could not be rebuilt after a forget");
          return { ...plan, applied, purgeError: (error as Error).message };
        }
      }),
    );
  }

  /** Replaces a wrong fact in place (see correctFact) and reindexes the files it was in. */
  async correct(correction: Correction): Promise<CorrectionResult> {
    await this.queue.flush();
    return this.serialWrite(() =>
      this.exclusive(async () => {
        const result = await correctFact(this.brain, correction);
        await this.indexer.indexPaths(result.paths);
        return result;
      }),
    );
  }

  /** memorytool `recall(query)`: hybrid retrieval, after indexing whatever is queued. */
  async recall(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    await this.queue.flush();
    return this.search(query, options);
  }

  /** Seed 003 §7: summarise the oldest slice into memory.md when the session nears its context limit. */
  compact(input: CompactionInput): Promise<CompactionOutcome> {
    return flushBeforeCompaction(input, {
      brain: this.brain,
      log: this.compactions,
      onWritten: (path) => this.queue.request([path]),
    });
  }

  /** Keeps the index fresh while the brain is edited; returns immediately. Idempotent. */
  watch(): void {
    if (this.watcher) return;
    this.watcher = watchBrain(this.brain, (request) => this.queue.request(request), {
      debounceMs: this.settings.indexing.watch_debounce_ms,
      onError: (error) => this.logger.warn({ err: error }, "brain watcher error; rescanning"),
    });
    this.queue.request("all");
  }

  /** Waits for queued indexing to finish. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  status(): MemoryStatus {
    const indexed = this.store.indexedEmbedder();
    return {
      brain: this.brain.root,
      database: this.store.file,
      databaseBytes: fileBytes(this.store.file) + fileBytes(`${this.store.file}-wal`),
      files: this.store.fileRecords().length,
      chunks: this.store.chunkCount(),
      embedder: indexed?.key ?? null,
      embedderStale: indexed !== undefined && indexed.key !== embedderKey(this.embedder),
      vectorLists: this.store.embedderMatches(this.embedder)
        ? this.store.vectors(this.embedder).listCount()
        : 0,
      compactions: this.compactions.list().length,
      lastIndexedAt: this.store.lastIndexedAt(),
      skipped: [...this.skipped].map(([path, reason]) => ({ path, reason })),
    };
  }

  async close(): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
    await this.queue.flush();
    this.store.close();
  }

  private runPass(request: IndexRequest): Promise<IndexReport> {
    return this.exclusive(() =>
      request === "all" ? this.indexer.indexAll() : this.indexer.indexPaths(request),
    ).then((report) => this.noteSkipped(report, request));
  }

  /**
   * Keeps what a pass left out for status(), and logs each file newly left out: a huge file someone wrote into
   * the brain is skipped and said so, never read whole.
   */
  private noteSkipped(report: IndexReport, request: IndexRequest): IndexReport {
    const before = new Map(this.skipped);
    if (request === "all") this.skipped.clear();
    else for (const path of request) this.skipped.delete(path);
    for (const { path, reason } of report.skipped) {
      this.skipped.set(path, reason);
      if (before.get(path) !== reason) this.logger.warn({ path, reason }, "a brain file was not indexed");
    }
    return report;
  }

  /**
   * Runs a write of brain files one at a time with this memory's own appends and rewrites; other writers of the
   * brain in this process (the day's log) go through it so a forget never drops their lines.
   */
  writeFiles<T>(write: () => Promise<T>): Promise<T> {
    return this.serialWrite(write);
  }

  private serialWrite<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** Runs index passes of this process one at a time; other processes are kept apart by SQLite's write lock. */
  private exclusive<T>(pass: () => Promise<T>): Promise<T> {
    const run = this.chain.then(pass, pass);
    this.chain = run.catch(() => undefined);
    return run;
  }
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
