import { closeSync } from "node:fs";
import { sha256Hex } from "../core/index.js";
import { BrainFileRefusal, openBrainFile, readBrainFile } from "./brain-file-access.js";
import { type BrainFile, listBrainFiles, type SkippedFile } from "./brain-files.js";
import { type BrainLayout, isIndexablePath } from "./brain-layout.js";
import { chunkMarkdown, DEFAULT_CHUNK_MAX_BYTES } from "./chunker.js";
import type { Embedder } from "./embedders/embedder.js";
import { type FileUpdate, type IndexStore, StalePlanError } from "./index-store.js";
import { embeddingInput } from "./stored-chunk.js";

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
}

export interface PassOptions {
  onProgress?: (progress: IndexProgress) => void;
  signal?: AbortSignal;
}

type Plan = Omit<FileUpdate, "vectors"> & { needed: Map<string, string> };

/**
 * Keeps the index in step with the markdown. A pass reads only files whose mtime or size changed, re-chunks a
 * file only when its hash changed, embeds only text whose vector is not cached, and writes each file in one
 * transaction (see IndexStore.applyFile), many files to a commit. Deleted files are removed last, so a renamed
 * file reuses its vectors.
 */
export class Indexer {
  private readonly maxBytes: number;
  private readonly maxFileBytes: number;
  private readonly embedBatch: number;
  private readonly commitBatch: number;

  constructor(
    readonly brain: BrainLayout,
    readonly store: IndexStore,
    readonly embedder: Embedder,
    options: IndexerOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CHUNK_MAX_BYTES;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.embedBatch = options.embedBatch ?? 256;
    this.commitBatch = options.commitBatch ?? 8192;
  }

  /** Indexes the whole brain incrementally. */
  async indexAll(options: PassOptions = {}): Promise<IndexReport> {
    const report = this.startReport();
    const { files, skipped } = await listBrainFiles(this.brain);
    report.skipped = skipped;
    report.files = files.length;
    const stale = files.filter((f) => {
      const record = this.store.fileRecord(f.path);
      // A file chunked with another chunk size is re-read too; chunk ids keep its unchanged sections in place.
      const same =
        record !== undefined &&
        record.mtimeMs === f.mtimeMs &&
        record.size === f.size &&
        record.chunkMaxBytes === this.maxBytes;
      if (same) report.unchanged++;
      return !same;
    });
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
    const present: BrainFile[] = [];
    for (const path of new Set(paths)) {
      // Refuses absolute paths, `..` and links out with an error naming the path; the open below re-checks.
      this.brain.resolve(path);
      if (!isIndexablePath(path)) continue;
      const info = this.describe(path, report);
      if (info) present.push({ path, mtimeMs: Math.trunc(info.mtimeMs), size: info.size });
      else if (this.store.fileRecord(path) || this.store.chunkKeys(path).size > 0) {
        report.chunksRemoved += this.store.removeFile(path, this.embedder);
        report.removed++;
      }
    }
    report.files = present.length;
    await this.syncFiles(present, report, options);
    return this.finish(report);
  }

  private async syncFiles(files: BrainFile[], report: IndexReport, options: PassOptions): Promise<void> {
    let done = 0;
    for (let start = 0; start < files.length; ) {
      const plans: Plan[] = [];
      const vectors = new Map<string, Float32Array>();
      try {
        let chunks = 0;
        while (start < files.length && chunks < this.commitBatch) {
          const embedding: Plan[] = [];
          let pending = 0;
          while (start < files.length && pending < this.embedBatch && chunks < this.commitBatch) {
            options.signal?.throwIfAborted();
            const plan = this.plan(files[start++] as BrainFile, report);
            if (!plan) continue;
            embedding.push(plan);
            pending += plan.needed.size;
            chunks += plan.chunks.length;
          }
          for (const [hash, vector] of await this.embedNeeded(embedding, options.signal))
            vectors.set(hash, vector);
          plans.push(...embedding);
        }
      } finally {
        // Written also when the embedder fails partway (or the pass is aborted): the files whose vectors it
        // already gave are kept. One commit for all of them; a file with a stale plan is refused before it writes.
        report.embedded += vectors.size;
        if (plans.length > 0)
          this.store.writeBatch(() => {
            for (const plan of plans) {
              this.apply(plan, vectors, report);
              options.onProgress?.({ done: ++done, total: files.length, path: plan.path });
            }
          });
      }
    }
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
   * Reads and chunks one file; undefined when its content is what the index already has, or when the file
   * vanished or was refused since it was listed (a guest may swap it for a link at any moment).
   */
  private plan(listed: BrainFile, report: IndexReport): Plan | undefined {
    let read: ReturnType<typeof readBrainFile>;
    try {
      read = readBrainFile(this.brain.root, listed.path, this.maxFileBytes);
    } catch (error) {
      if (!(error instanceof BrainFileRefusal)) throw error;
      report.skipped.push({ path: listed.path, reason: error.rule });
      return undefined;
    }
    if (!read) return undefined;
    // What was read is described by the descriptor it was read from, not by the earlier listing.
    const file = { path: listed.path, mtimeMs: Math.trunc(read.info.mtimeMs), size: read.info.size };
    const text = read.bytes.toString("utf8");
    const hash = sha256Hex(text);
    const record = this.store.fileRecord(file.path);
    if (record?.hash === hash && record.chunkMaxBytes === this.maxBytes) {
      this.store.touchFile(file.path, file.mtimeMs, file.size);
      report.unchanged++;
      return undefined;
    }
    const chunks = chunkMarkdown(file.path, text, { maxBytes: this.maxBytes }).map((c) => {
      const input = embeddingInput(c.headings, c.text);
      return { ...c, embedHash: sha256Hex(input), input };
    });
    const existing = this.store.chunkKeys(file.path);
    const fresh = chunks.filter((c) => !existing.has(c.id));
    const cached = this.store.cache(this.embedder).get(fresh.map((c) => c.embedHash));
    report.cacheHits += fresh.filter((c) => cached.has(c.embedHash)).length;
    const needed = new Map(fresh.filter((c) => !cached.has(c.embedHash)).map((c) => [c.embedHash, c.input]));
    return {
      path: file.path,
      hash,
      mtimeMs: file.mtimeMs,
      size: file.size,
      chunkMaxBytes: this.maxBytes,
      chunks,
      needed,
    };
  }

  private async embedNeeded(plans: Plan[], signal?: AbortSignal): Promise<Map<string, Float32Array>> {
    const texts = new Map<string, string>();
    for (const plan of plans) for (const [hash, input] of plan.needed) texts.set(hash, input);
    if (texts.size === 0) return new Map();
    const vectors = await this.embedder.embed([...texts.values()], signal ? { signal } : {});
    const hashes = [...texts.keys()];
    return new Map(vectors.map((v, i) => [hashes[i] as string, v]));
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
