// First turn of a user whose cell is not running, through the whole warden (HTTP → warden → cell → model
// proxy → scripted model server and back): from a warden whose [cells] pool_size holds a blank cell, against
// one that starts every cell cold, in the same run, for new users (no brain yet) and returning ones (their
// cell stopped, as after an idle stop). A second pass splits the time: the hand-out (CellManager.get: a
// pooled cell given its brain, or a cold start) and the cell's Ready (the agent built on that brain).
// Usage: npm run bench:warden:first-turn [-- runs]   (default 7; bwrap under root, the bundled guest)
import { loadavg } from "node:os";
import { bundleRuntime, createBwrapBackend } from "../../src/cells/index.js";
import { reply } from "../../test/support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../../test/support/warden-harness.js";
import { formatTable } from "../agent/timing.js";
import { describeBaseline, nodeSpawnBaseline } from "../node-baseline.js";
import { percentile } from "../percentile.js";

const RUNS = Number(process.argv[2] ?? 7);
const ANSWER = "Hello, and welcome.";
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const median = (xs: number[]) => percentile(xs, 50);

async function warden(poolSize: number): Promise<WardenHarness> {
  const h = await startWardenHarness({
    backend: createBwrapBackend({ runtime: bundleRuntime() }),
    configure: (config) => ({ ...config, cells: { ...config.cells, pool_size: poolSize } }),
  });
  h.model.respondWith(() => reply.text(ANSWER));
  return h;
}

interface Sample {
  firstReply: number[];
  handOut: number[];
  ready: number[];
}

/** One user's first request with no running cell: end to end, or (split) hand-out and Ready, then the turn. */
async function firstTurn(h: WardenHarness, token: string, user: string, into: Sample, split: boolean) {
  // Each request starts from a full pool (a no-op without one).
  await h.warden.context.cells.prewarm();
  const cells = h.warden.context.cells;
  const started = performance.now();
  if (split) {
    await cells.manager.get(user);
    into.handOut.push(performance.now() - started);
    await cells.get(user);
    into.ready.push(performance.now() - started);
    return;
  }
  const answer = (await (await api(h.url, token)("POST", "/api/chat", { text: "hi" })).json()) as {
    data?: { text: string };
  };
  if (answer.data?.text !== ANSWER) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  into.firstReply.push(performance.now() - started);
}

const loadBefore = load();
const baseline = await nodeSpawnBaseline(10);
const nodeMs = baseline.spawnMs;
const wardens = { cold: await warden(0), pooled: await warden(1) };
const samples: Record<string, Sample> = {};
const sample = (key: string) => {
  samples[key] ??= { firstReply: [], handOut: [], ready: [] };
  return samples[key];
};
try {
  for (let i = 0; i < RUNS; i++) {
    // Alternated, so both wardens see the same moments of a noisy host.
    for (const [name, h] of i % 2 ? Object.entries(wardens).reverse() : Object.entries(wardens)) {
      for (const split of [false, true]) {
        const user = `${split ? "s" : "e"}${i}`;
        const token = await h.addUser(user);
        await firstTurn(h, token, user, sample(`${name}/new`), split);
        await h.warden.context.cells.stop(user);
        await firstTurn(h, token, user, sample(`${name}/returning`), split);
        await h.warden.context.cells.stop(user);
      }
    }
  }
} finally {
  await Promise.all(Object.values(wardens).map((h) => h.close()));
}

const f = (n: number) => `${n.toFixed(1)} ms`;
const rows: string[][] = [];
for (const kind of ["new", "returning"]) {
  const cold = samples[`cold/${kind}`];
  const pooled = samples[`pooled/${kind}`];
  if (!cold || !pooled) continue;
  for (const [what, key] of [
    ["first request → reply", "firstReply"],
    ["hand-out (cell given)", "handOut"],
    ["cell Ready", "ready"],
  ] as const) {
    const [c, p] = [median(cold[key]), median(pooled[key])];
    rows.push([`${kind} user: ${what}`, f(c), f(p), `${(p / c).toFixed(2)}×`, `${(p / nodeMs).toFixed(2)}×`]);
  }
}
console.log(
  `\nfirst turn with no running cell (median of ${RUNS}; load average before ${loadBefore}, after ${load()})\nbaseline: ${describeBaseline(baseline)}`,
);
console.log(formatTable(["measure", "cold start", "pooled", "pooled ÷ cold", "pooled ÷ node -e"], rows));
