import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { WordTableRecipe } from "../embedders/word-table-build.js";
import type { FileRead, FileToRead, ReadLimits } from "../file-read.js";

/** What the worker is started with. */
export interface IndexWorkerData {
  root: string;
  limits: ReadLimits;
  /** The built-in embedder to load, and the key its vectors must have; absent: the worker only reads. */
  embedder?: { source: { dataDir: string; recipe: WordTableRecipe }; key: string };
}

type RequestBody = { op: "read"; files: FileToRead[] } | { op: "embed"; texts: string[] };
export type WorkerRequest = RequestBody & { id: number };

export type WorkerReply =
  | { id: number; reads: FileRead[] }
  | { id: number; vectors: Float32Array; dimensions: number }
  | { id: number; error: { name: string; message: string; code?: string | undefined } };

interface Pending {
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

/**
 * The indexer's worker thread (index-worker.ts), seen from the indexer: `read` and `embed` return what the
 * worker computed, in the order asked. Used only where a second core exists and the worker's module is on disk
 * beside this one (the package and the source tree; a cell's single-file bundle has none, and indexes on one
 * thread).
 */
export class IndexWorker {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
    });
    worker.on("error", (error) => this.fail(error));
    worker.on("exit", (code) => this.fail(new Error(`the index worker exited (code ${code})`)));
  }

  /** Starts a worker, or returns undefined where one would not help or cannot start. */
  static async start(data: IndexWorkerData): Promise<IndexWorker | undefined> {
    if (availableParallelism() < 2) return undefined;
    const file = await workerEntry();
    if (file === undefined) return undefined;
    try {
      return new IndexWorker(new Worker(file, { workerData: data }));
    } catch {
      // No thread to be had (a task limit, memory): the pass runs on one thread, as it would on one core.
      return undefined;
    }
  }

  async read(files: FileToRead[]): Promise<FileRead[]> {
    const reply = await this.request({ op: "read", files });
    if (!("reads" in reply)) throw new Error("the index worker answered a read with something else");
    return reply.reads;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const reply = await this.request({ op: "embed", texts });
    if (!("vectors" in reply)) throw new Error("the index worker answered an embed with something else");
    const { vectors, dimensions } = reply;
    return texts.map((_, i) => vectors.subarray(i * dimensions, (i + 1) * dimensions));
  }

  /** Stops the worker; whatever was still asked of it is refused. */
  async close(): Promise<void> {
    this.fail(new Error("the index worker was closed"));
    await this.worker.terminate();
  }

  private request(body: RequestBody): Promise<WorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...body, id });
    }).then((reply) => {
      if (!("error" in reply)) return reply;
      throw Object.assign(new Error(reply.error.message), { name: reply.error.name, code: reply.error.code });
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/**
 * The worker's module: compiled JavaScript beside this module in the package. Run from the TypeScript source
 * (tests, benches), a worker thread gets no TypeScript loader on Node 20, so the module is bundled once per
 * process with esbuild (a development dependency) into the temp directory.
 */
function workerEntry(): Promise<string | undefined> {
  if (!import.meta.url.endsWith(".ts")) {
    const file = fileURLToPath(new URL("./index-worker.js", import.meta.url));
    return Promise.resolve(existsSync(file) ? file : undefined);
  }
  sourceBundle ??= bundleFromSource(fileURLToPath(new URL("./index-worker.ts", import.meta.url))).catch(
    () => undefined,
  );
  return sourceBundle;
}

let sourceBundle: Promise<string | undefined> | undefined;

async function bundleFromSource(entry: string): Promise<string> {
  // Named through a variable so that no bundler follows it: the package's cell bundle must not carry esbuild.
  const bundler = "esbuild";
  const { build } = (await import(bundler)) as typeof import("esbuild");
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
    external: ["better-sqlite3", "sqlite-vec"],
    // Bundled CommonJS packages call require(), which an ES module lacks.
    banner: {
      js: 'import { createRequire as __ironclawRequire } from "node:module"; const require = __ironclawRequire(import.meta.url);',
    },
  });
  const text = result.outputFiles[0]?.text ?? "";
  const file = join(
    tmpdir(),
    `ironclaw-index-worker-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.mjs`,
  );
  if (!existsSync(file)) {
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, text);
    await rename(temp, file);
  }
  return file;
}
