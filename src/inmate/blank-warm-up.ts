import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentRuntime } from "../agent/index.js";
import { createLogger } from "../core/index.js";
import { type Embedder, initBrain } from "../memory/index.js";

/*
 * Why a blank cell opens a brain nobody owns. Opening the user's brain at hand-out is the first time the
 * cell's node loads SQLite's native module and sqlite-vec, prepares the index's statements and runs the
 * indexer's code: in a fresh process that took about 55 ms for what takes 3 ms the second time (measured
 * in process). A blank cell waits anyway, so it opens, indexes and closes a starter brain of its own in its
 * private /tmp first; the user's brain then opens in a process where all of that is loaded and compiled.
 * Nothing of it is kept: the throwaway brain is removed and no user's data is ever near it.
 */
export async function warmUpAgentRuntime(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), ".blank-warm-up-"));
  try {
    const root = join(dir, "brain");
    await initBrain(root);
    const runtime = await AgentRuntime.open(root, {
      embedder: new FixedEmbedder(),
      workspace: dir,
      env: {},
      logger: createLogger("warm-up", { level: "silent" }),
    });
    await runtime.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Unit vectors without a model: the warm-up exercises the index, not an embedder. */
class FixedEmbedder implements Embedder {
  readonly id = "warm-up";
  readonly model = "fixed";
  readonly dimensions = 8;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((_, i) => {
      const vector = new Float32Array(this.dimensions);
      vector[i % this.dimensions] = 1;
      return vector;
    });
  }
}
