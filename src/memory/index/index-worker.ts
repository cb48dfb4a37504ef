/**
 * The indexer's worker thread (started by index-worker-client.ts): reads, hashes and chunks files and, for the
 * built-in embedder, embeds texts, while the indexer's own thread writes the previous commit. It opens no
 * database. Requests run one at a time; a waiting embed goes before waiting reads, because the indexer's next
 * commit waits on it while reads are prefetched ahead.
 */
import { parentPort, workerData } from "node:worker_threads";
import { BuiltinEmbedder } from "../embedders/builtin-embedder.js";
import { embedderKey } from "../embedders/embedder.js";
import { readFileForIndex } from "../file-read.js";
import type { IndexWorkerData, WorkerReply, WorkerRequest } from "./index-worker-client.js";

const port = parentPort;
if (!port) throw new Error("index-worker.ts runs as a worker thread of the indexer");
const data = workerData as IndexWorkerData;

let loaded: Promise<BuiltinEmbedder> | undefined;
function embedder(): Promise<BuiltinEmbedder> {
  const wanted = data.embedder;
  if (!wanted) return Promise.reject(new Error("this index worker was started without an embedder"));
  loaded ??= BuiltinEmbedder.load(wanted.source).then((loadedEmbedder) => {
    // A table that differs from the indexer's would give vectors of another space.
    if (embedderKey(loadedEmbedder) !== wanted.key)
      throw new Error(`the worker's embedder is ${embedderKey(loadedEmbedder)}, not ${wanted.key}`);
    return loadedEmbedder;
  });
  return loaded;
}

async function handle(request: WorkerRequest): Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> {
  if (request.op === "read") {
    const reads = request.files.map((file) => readFileForIndex(data.root, file, data.limits));
    return { reply: { id: request.id, reads }, transfer: [] };
  }
  const e = await embedder();
  // One buffer for the whole request, moved rather than copied to the indexer.
  const vectors = new Float32Array(request.texts.length * e.dimensions);
  for (const [i, text] of request.texts.entries()) vectors.set(e.embedText(text), i * e.dimensions);
  return { reply: { id: request.id, vectors, dimensions: e.dimensions }, transfer: [vectors.buffer] };
}

const queue: WorkerRequest[] = [];
let scheduled = false;

function schedule(): void {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  setImmediate(runNext);
}

/** One request at a time, to its end (an embed may wait for the table to load), then the next. */
async function runNext(): Promise<void> {
  const embed = queue.findIndex((r) => r.op === "embed");
  const request = queue.splice(Math.max(embed, 0), 1)[0];
  if (request) {
    try {
      const { reply, transfer } = await handle(request);
      port?.postMessage(reply, transfer);
    } catch (error) {
      const { name, message, code } = error as NodeJS.ErrnoException;
      port?.postMessage({
        id: request.id,
        error: { name, message: String(message), code },
      } satisfies WorkerReply);
    }
  }
  scheduled = false;
  schedule();
}

// The table loads while the first files are read; a failure is answered to the first embed.
if (data.embedder) embedder().catch(() => {});

port.on("message", (request: WorkerRequest) => {
  queue.push(request);
  schedule();
});
