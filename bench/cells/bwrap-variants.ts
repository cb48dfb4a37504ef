// What each hardening of a bwrap cell costs at cold start, every variant measured in the same run: per-cell
// cgroups and brain images (a root warden), and, for a brain with the built-in ("local") embedder, the host's
// word table bound read-only against the cell converting the 300 MB package JSON itself.
import { join } from "node:path";
import {
  type BwrapBackendOptions,
  type CellHandle,
  createBwrapBackend,
  createCellCgroup,
  type GuestRuntime,
} from "../../src/cells/index.js";

export interface VariantFigures {
  variant: string;
  handler: "echo" | "agent";
  /** A new user's first start: the brain (and its image) is made. */
  coldStartMs: number;
  /** The same user's next start: the brain exists. */
  restartMs: number;
  runs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Start to first answer: a file listing for echo cells, Hello → Ready (the agent and its memory open) for agents. */
async function firstAnswer(cell: CellHandle, handler: "echo" | "agent"): Promise<void> {
  const reply =
    handler === "agent"
      ? await cell.call({ type: "Hello", providers: [] }, { timeoutMs: 300_000 })
      : await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 120_000 });
  if (reply.type === "Error") throw new Error(`the cell answered ${reply.code}: ${reply.message}`);
}

async function coldStarts(
  home: string,
  runtime: GuestRuntime,
  variant: string,
  handler: "echo" | "agent",
  options: BwrapBackendOptions,
  runs: number,
): Promise<VariantFigures> {
  const backend = createBwrapBackend({ runtime, onWarning: () => {}, ...options });
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < runs; i++) {
    // A new user each time: a new brain, as a new user's first start has; then the same user once more.
    const user = `${variant.replace(/[^a-z0-9]+/gi, "-")}-${i}`;
    for (const times of [first, again]) {
      const started = performance.now();
      const cell = await backend.start({
        userId: user,
        userDir: join(home, "variants", user),
        handler,
        runAs: { uid: 62_000 + i, gid: 62_000 + i },
        startTimeoutMs: 300_000,
      });
      await firstAnswer(cell, handler);
      times.push(performance.now() - started);
      await cell.stop();
    }
  }
  return { variant, handler, coldStartMs: median(first), restartMs: median(again), runs };
}

/** The cgroup setup alone (create with limits, then remove), the part of a cold start the cgroups add. */
export async function measureCgroupSetup(runs = 20): Promise<{ medianMs: number; runs: number } | undefined> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const group = await createCellCgroup(`bench-${process.pid}-${i}`, { memoryMiB: 1024, maxTasks: 1024 });
    if ("unavailable" in group) return undefined;
    await group.remove();
    times.push(performance.now() - started);
  }
  return { medianMs: median(times), runs };
}

/** Every variant, interleaved run by run would be fairer still; in sequence keeps each variant's cache warm alike. */
export async function measureBwrapVariants(home: string, runtime: GuestRuntime): Promise<VariantFigures[]> {
  const asRoot = process.getuid?.() === 0;
  const figures: VariantFigures[] = [];
  const echo = (variant: string, options: BwrapBackendOptions) =>
    coldStarts(home, runtime, variant, "echo", options, 7);
  figures.push(await echo("defaults", {}));
  if (asRoot) {
    figures.push(await echo("no per-cell cgroups", { cgroups: false }));
    figures.push(await echo("directory brain (no image)", { brainImages: false }));
    figures.push(await echo("neither", { cgroups: false, brainImages: false }));
  }
  figures.push(await coldStarts(home, runtime, "local embedder, host word table bound", "agent", {}, 3));
  figures.push(
    await coldStarts(
      home,
      runtime,
      "local embedder, table built in the cell",
      "agent",
      { embeddingsHome: false },
      3,
    ),
  );
  return figures;
}
