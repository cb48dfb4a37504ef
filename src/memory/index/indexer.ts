import { closeSync } from "node:fs";
import { BrainFileRefusal, openBrainFile } from "../brain-file-access.js";
import { listBrainFiles, type SkippedFile } from "../brain-files.js";
import { type BrainLayout, isIndexablePath } from "../brain-layout.js";
import { DEFAULT_CHUNK_MAX_BYTES } from "../chunker.js";
import { BuiltinEmbedder } from "../embedders/builtin-embedder.js";
import { type Embedder, embedderKey } from "../embedders/embedder.js";
import { type FileRead, type FileToRead, type ReadLimits, readFileForIndex } from "../file-read.js";
import { type FileUpdate, type IndexStore, StalePlanError } from "./index-store.js";
import { IndexWorker } from "./index-worker-client.js";

export interface IndexProgress {
  done: number;
  total: number;
  path?: string;
}

/** What one indexing pass did; `embedded` counts texts sent to the embedder (cache hits are not). */
export interface IndexReport {
  files: number;
  updated: number;
  unchanged: number;
  removed: number;
  chunksAdded: number;
  chunksRemoved: number;
  chunksMoved: number;
  embedded: number;
  cacheHits: number;
  /** The embedder changed since the last pass, so every chunk was embedded again. */
  reembedded: boolean;
  listsRebuilt: boolean;
  /** A worker thread read (and, with the built-in embedder, embedded) while this one wrote. */
  worker: boolean;
  skipped: SkippedFile[];
  durationMs: number;
}

/** Larger markdown files are skipped (and reported), not read: the brain is guest-written and sizes are not trusted. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface IndexerOptions {
  maxBytes?: number;
  /** Largest file read (default DEFAULT_MAX_FILE_BYTES). */
  maxFileBytes?: number;
  /** Texts collected across files before one embedder call; remote embedders batch further themselves. */
  embedBatch?: number;
  /**
   * Chunks of new or changed files written in one commit (default 8192). A commit per file made FTS5 write and
   * merge a segment per file; each file is still all or nothing, and no transaction is open while embedding.
   * Each commit also rewrites the pages every batch touches (FTS5 structure, B-tree interiors) and ends in a
   * checkpoint: at 100k chunks, 8192 a commit took ~2 s less than 2048 over a ~22 s pass.
   */
  commitBatch?: number;
  /**
   * Whether a pass reads, chunks and embeds (built-in embedder) in a worker thread while this thread writes.
   * "auto" (default): for passes with at least WORKER_MIN_BYTES to read, where a second core exists.
   */
  worker?: IndexWorkerMode;
}

/** Where a pass reads and embeds: see IndexerOptions.worker. */
export type IndexWorkerMode = "auto" | "always" | "never";

/** A pass smaller than this reads on the indexer's thread: a worker takes ~0.1 s to start and load its table. */
export const WORKER_MIN_BYTES = 1024 * 1024;

export interface PassOptions {
  onProgress?: (progress: IndexProgress) => void;
  signal?: AbortSignal;
}

type Plan = Omit<FileUpdate, "vectors"> & { needed: Map<string, string> };

/** A commit's plans whose vectors arrived, and the error that stopped the rest, if any. */
interface EmbeddedGroup {
  plans: Plan[];
  vectors: Map<string, Float32Array>;
  error?: unknown;
}

/** Where a pass reads and embeds: a worker thread, or the indexer's own. */
interface PassThreads {
  worker: boolean;
  /** The worker embeds: a commit's batches can all be asked for at once. */
  embedsInWorker: boolean;
  read(files: FileToRead[]): Promise<FileRead[]>;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * Keeps the index in step with the markdown. A pass reads only files whose mtime or size changed, re-chunks a
 * file only when its hash changed, embeds only text whose vector is not cached, and writes each file in one
 * transaction (see IndexStore.applyFile), many files to a commit. Deleted files are removed last, so a renamed
 * file reuses its vectors.
 */
export class Indexer {
  private readonly maxBytes: number;
  /** What a read of one file is bounded by: the largest file, and the chunker's chunk size. */
  private readonly limits: ReadLimits;
  private readonly embedBatch: number;
  private readonly commitBatch: number;
  private readonly workerMode: IndexWorkerMode;

  constructor(
    readonly brain: BrainLayout,
    readonly store: IndexStore,
    readonly embedder: Embedder,
    options: IndexerOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CHUNK_MAX_BYTES;
    this.limits = { maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, maxBytes: this.maxBytes };
    this.embedBatch = options.embedBatch ?? 256;
    this.commitBatch = options.commitBatch ?? 8192;
    this.workerMode = options.worker ?? "auto";
  }

  /** Indexes the whole brain incrementally. */
  async indexAll(options: PassOptions = {}): Promise<IndexReport> {
    const report = this.startReport();
    const { files, skipped } = await listBrainFiles(this.brain);
    report.skipped = skipped;
    report.files = files.length;
    const stale: FileToRead[] = [];
    for (const f of files) {
      const record = this.store.fileRecord(f.path);
      // A file chunked with another chunk size is re-read too; chunk ids keep its unchanged sections in place.
      const sameChunking = record?.chunkMaxBytes === this.maxBytes;
      if (sameChunking && record.mtimeMs === f.mtimeMs && record.size === f.size) report.unchanged++;
      else stale.push(sameChunking ? { ...f, indexedHash: record.hash } : f);
    }
    await this.syncFiles(stale, report, options);
    const present = new Set(files.map((f) => f.path));
    for (const record of this.store.fileRecords()) {
      if (present.has(record.path)) continue;
      report.chunksRemoved += this.store.removeFile(record.path, this.embedder);
      report.removed++;
    }
    return this.finish(report);
  }

  /** Clears the index (the embedding cache stays) and indexes everything again. */
  async rebuild(options: PassOptions = {}): Promise<IndexReport> {
    this.store.clear();
    return this.indexAll(options);
  }

  /** Indexes specific brain-relative paths (from the watcher or `remember`); a path that is gone is removed. */
  async indexPaths(paths: readonly string[], options: PassOptions = {}): Promise<IndexReport> {
    const report = this.startReport();
    const present: FileToRead[] = [];
    for (const path of new Set(paths)) {
      // Refuses absolute paths, `..` and links out with an error naming the path; the open below re-checks.
      this.brain.resolve(path);
      if (!isIndexablePath(path)) continue;
      const info = this.describe(path, report);
      if (info) {
        const record = this.store.fileRecord(path);
        present.push({
          path,
          mtimeMs: Math.trunc(info.mtimeMs),
          size: info.size,
          ...(record?.chunkMaxBytes === this.maxBytes ? { indexedHash: record.hash } : {}),
        });
      } else if (this.store.fileRecord(path) || this.store.chunkKeys(path).size > 0) {
        report.chunksRemoved += this.store.removeFile(path, this.embedder);
        report.removed++;
      }
    }
    report.files = present.length;
    await this.syncFiles(present, report, options);
    return this.finish(report);
  }

  /**
   * Reads, embeds and writes `files` as a pipeline: while this thread writes one commit (SQLite), the next one's
   * files are read, chunked and embedded, by the worker thread where there is one. A failure (or an abort)
   * still writes every file whose vectors had arrived, then ends the pass with it.
   */
  private async syncFiles(files: FileToRead[], report: IndexReport, options: PassOptions): Promise<void> {
    const threads = await this.passThreads(files);
    report.worker = threads.worker;
    const reads = new FileReads(files, threads);
    const progress = { done: 0, total: files.length };
    try {
      const first = await this.nextGroup(reads, report, options.signal);
      let embedding = first && this.embedGroup(first, threads, options.signal);
      while (embedding) {
        const embedded = await embedding;
        embedding = undefined;
        let failure = embedded.error;
        if (failure === undefined) {
          try {
            const following = await this.nextGroup(reads, report, options.signal);
            embedding = following && this.embedGroup(following, threads, options.signal);
          } catch (error) {
            failure = error;
          }
        }
        this.writeGroup(embedded, report, progress, options);
        if (failure !== undefined) throw failure;
      }
    } finally {
      await threads.close();
    }
  }

  /** The next commit's plans: files read until they hold `commitBatch` chunks; undefined when none are left. */
  private async nextGroup(
    reads: FileReads,
    report: IndexReport,
    signal?: AbortSignal,
  ): Promise<Plan[] | undefined> {
    const plans: Plan[] = [];
    let chunks = 0;
    while (chunks < this.commitBatch) {
      signal?.throwIfAborted();
      const read = await reads.take();
      if (!read) break;
      const plan = this.plan(read, report);
      if (!plan) continue;
      plans.push(plan);
      chunks += plan.chunks.length;
    }
    return plans.length > 0 ? plans : undefined;
  }

  /**
   * Vectors for a commit's plans, in batches of about `embedBatch` texts. A worker gets every batch at once
   * (they run while this thread writes); another embedder gets them one after the other, as a remote one
   * expects. Never rejects: a failure comes back with the plans whose vectors had all arrived.
   */
  private async embedGroup(
    plans: Plan[],
    threads: PassThreads,
    signal?: AbortSignal,
  ): Promise<EmbeddedGroup> {
    const vectors = new Map<string, Float32Array>();
    const batches: { plans: Plan[]; texts: Map<string, string> }[] = [];
    const queued = new Set<string>();
    for (const plan of plans) {
      let batch = batches.at(-1);
      if (!batch || batch.texts.size >= this.embedBatch) {
        batch = { plans: [], texts: new Map() };
        batches.push(batch);
      }
      batch.plans.push(plan);
      for (const [hash, input] of plan.needed) {
        if (queued.has(hash)) continue;
        queued.add(hash);
        batch.texts.set(hash, input);
      }
    }
    const embed = (batch: (typeof batches)[number]) => threads.embed([...batch.texts.values()], signal);
    const started = threads.embedsInWorker ? batches.map(embed) : [];
    for (const promise of started) promise.catch(() => {});
    const done: Plan[] = [];
    try {
      for (const [i, batch] of batches.entries()) {
        if (batch.texts.size > 0) {
          signal?.throwIfAborted();
          const out = await (started[i] ?? embed(batch));
          const hashes = [...batch.texts.keys()];
          for (const [j, vector] of out.entries()) vectors.set(hashes[j] as string, vector);
        }
        done.push(...batch.plans);
      }
      return { plans: done, vectors };
    } catch (error) {
      return { plans: done, vectors, error };
    }
  }

  /** One commit for the group's files; a file with a stale plan is refused before it writes. */
  private writeGroup(
    group: EmbeddedGroup,
    report: IndexReport,
    progress: { done: number; total: number },
    options: PassOptions,
  ): void {
    report.embedded += group.vectors.size;
    if (group.plans.length === 0) return;
    this.store.writeBatch(() => {
      for (const plan of group.plans) {
        this.apply(plan, group.vectors, report);
        options.onProgress?.({ done: ++progress.done, total: progress.total, path: plan.path });
      }
    });
  }

  /**
   * A worker thread for a pass with at least WORKER_MIN_BYTES to read (starting one costs more than a few
   * files take), reading and, for the built-in embedder, embedding; otherwise this thread does both.
   */
  private async passThreads(files: readonly FileToRead[]): Promise<PassThreads> {
    const { limits } = this;
    const embedHere = (texts: string[], signal?: AbortSignal) =>
      this.embedder.embed(texts, signal ? { signal } : {});
    const here: PassThreads = {
      worker: false,
      embedsInWorker: false,
      read: async (batch) => batch.map((f) => readFileForIndex(this.brain.root, f, limits)),
      embed: embedHere,
      close: async () => {},
    };
    const bytes = files.reduce((sum, f) => sum + f.size, 0);
    const wanted = this.workerMode === "always" || (this.workerMode === "auto" && bytes >= WORKER_MIN_BYTES);
    const builtin = this.embedder instanceof BuiltinEmbedder ? this.embedder : undefined;
    const worker = wanted
      ? await IndexWorker.start({
          root: this.brain.root,
          limits,
          ...(builtin ? { embedder: { source: builtin.source, key: embedderKey(builtin) } } : {}),
        })
      : undefined;
    if (!worker) return here;
    return {
      worker: true,
      embedsInWorker: builtin !== undefined,
      read: (batch) => worker.read(batch),
      embed: builtin ? (texts) => worker.embed(texts) : embedHere,
      close: () => worker.close(),
    };
  }

  /** The fstat of a file present and readable at `path`; a refused one is reported as skipped. */
  private describe(path: string, report: IndexReport) {
    try {
      const opened = openBrainFile(this.brain.root, path);
      if (opened) closeSync(opened.fd);
      return opened?.info;
    } catch (error) {
      if (!(error instanceof BrainFileRefusal)) throw error;
      report.skipped.push({ path, reason: error.rule });
      return undefined;
    }
  }

  /**
   * What to write for a file as read: undefined when its content is what the index already has (checked again
   * here: the hash the read was given may be older), or when the file vanished or was refused since it was
   * listed.
   */
  private plan(read: FileRead, report: IndexReport): Plan | undefined {
    if (read.kind === "refused") {
      report.skipped.push({ path: read.path, reason: read.rule });
      return undefined;
    }
    if (read.kind === "gone") return undefined;
    const record = this.store.fileRecord(read.path);
    if (record?.hash === read.hash && record.chunkMaxBytes === this.maxBytes) {
      this.store.touchFile(read.path, read.mtimeMs, read.size);
      report.unchanged++;
      return undefined;
    }
    if (read.kind === "same") {
      // The index changed since the read was asked for: chunk it after all.
      return this.plan(
        readFileForIndex(
          this.brain.root,
          { path: read.path, mtimeMs: read.mtimeMs, size: read.size },
          this.limits,
        ),
        report,
      );
    }
    const { chunks } = read;
    const existing = this.store.chunkKeys(read.path);
    const fresh = chunks.filter((c) => !existing.has(c.id));
    const cached = this.store.cache(this.embedder).get(fresh.map((c) => c.embedHash));
    report.cacheHits += fresh.filter((c) => cached.has(c.embedHash)).length;
    const needed = new Map(fresh.filter((c) => !cached.has(c.embedHash)).map((c) => [c.embedHash, c.input]));
    return {
      path: read.path,
      hash: read.hash,
      mtimeMs: read.mtimeMs,
      size: read.size,
      chunkMaxBytes: this.maxBytes,
      chunks,
      needed,
    };
  }

  private apply(plan: Plan, vectors: Map<string, Float32Array>, report: IndexReport): void {
    const own = new Map<string, Float32Array>();
    for (const hash of plan.needed.keys()) {
      const vector = vectors.get(hash);
      if (vector) own.set(hash, vector);
    }
    try {
      const change = this.store.applyFile({ ...plan, vectors: own }, this.embedder);
      report.chunksAdded += change.added;
      report.chunksRemoved += change.removed;
      report.chunksMoved += change.moved;
      report.updated++;
    } catch (error) {
      // Another writer changed the file's chunks between plan and write; the next pass sees the new state.
      if (!(error instanceof StalePlanError)) throw error;
      report.skipped.push({ path: plan.path, reason: error.message });
    }
  }

  private startReport(): IndexReport {
    return {
      files: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
      chunksAdded: 0,
      chunksRemoved: 0,
      chunksMoved: 0,
      embedded: 0,
      cacheHits: 0,
      reembedded: this.store.useEmbedder(this.embedder),
      listsRebuilt: false,
      worker: false,
      skipped: [],
      durationMs: performance.now(),
    };
  }

  private finish(report: IndexReport): IndexReport {
    report.listsRebuilt = this.store.vectors(this.embedder).rebalance(this.store.chunkCount());
    report.durationMs = Math.round(performance.now() - report.durationMs);
    return report;
  }
}

/**
 * A pass's files as read, in order. Reads are asked for in slices ahead of the indexer, up to a byte budget when
 * a worker reads (so it reads the next commit while this thread writes), one slice at a time otherwise.
 */
class FileReads {
  private nextFile = 0;
  private readonly asked: { reads: Promise<FileRead[]>; bytes: number }[] = [];
  private askedBytes = 0;
  private ready: FileRead[] = [];
  private readyAt = 0;
  private readonly budget: number;

  constructor(
    private readonly files: readonly FileToRead[],
    private readonly threads: PassThreads,
  ) {
    this.budget = threads.worker ? READ_AHEAD_BYTES : 0;
  }

  async take(): Promise<FileRead | undefined> {
    this.ask();
    while (this.readyAt >= this.ready.length) {
      const slice = this.asked.shift();
      if (!slice) return undefined;
      this.askedBytes -= slice.bytes;
      this.ready = await slice.reads;
      this.readyAt = 0;
      this.ask();
    }
    return this.ready[this.readyAt++];
  }

  private ask(): void {
    while (this.nextFile < this.files.length && (this.asked.length === 0 || this.askedBytes < this.budget)) {
      const slice: FileToRead[] = [];
      let bytes = 0;
      while (this.nextFile < this.files.length && slice.length < 64 && bytes < 256 * 1024) {
        const file = this.files[this.nextFile++] as FileToRead;
        slice.push(file);
        bytes += file.size;
      }
      const reads = this.threads.read(slice);
      // Awaited in order by take(); one that fails after the pass has stopped must not go unhandled.
      reads.catch(() => {});
      this.asked.push({ reads, bytes });
      this.askedBytes += bytes;
    }
  }
}

/** How far a worker reads ahead of the writes: about two default commits of typical notes. */
const READ_AHEAD_BYTES = 16 * 1024 * 1024;
