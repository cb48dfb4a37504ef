// Cell benchmarks: cold start to first protocol reply, warm-pool hand-out, frame round trip and throughput,
// idle host memory per cell, per backend, each against a plain `node -e` spawn measured in the same run.
// Usage: npm run bench:cells [-- --backends process,bwrap,microvm]
// The guest is the bundle (dist/cell) when it is built; the dist-against-bundle table measures both.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  bundleRuntime,
  type CellBackend,
  type CellHandle,
  CellManager,
  createBwrapBackend,
  createMicrovmBackend,
  createProcessBackend,
  distRuntime,
  imagePaths,
  PACKAGE_ROOT,
  sourceRuntime,
  treeRssBytes,
  WarmPool,
} from "../../src/cells/index.js";
import { describeBaseline, type NodeBaseline, nodeSpawnBaseline } from "../node-baseline.js";
import { percentile } from "../percentile.js";
import { type HandOutFigures, measureBlankHandOut } from "./blank-handout.js";
import { measureBwrapVariants, measureCgroupSetup, type VariantFigures } from "./bwrap-variants.js";
import { formatLoad } from "./goals.js";
import { measureMicrovmResume, type ResumeFigures } from "./microvm-resume.js";
import { compareRuntimes, type RuntimeFigures } from "./runtime-compare.js";
import { printStartupReport } from "./startup-report.js";

const { values } = parseArgs({ options: { backends: { type: "string" }, image: { type: "string" } } });
const imageDir = values.image ?? join(PACKAGE_ROOT, "node_modules/.cache/ironclaw-test-image");
const bundled = existsSync(join(PACKAGE_ROOT, "dist/cell/bundle.json"));
const runtime = bundled
  ? bundleRuntime()
  : existsSync(join(PACKAGE_ROOT, "dist/inmate/irowclaw.js"))
    ? distRuntime()
    : sourceRuntime();
const wanted = (
  values.backends ?? `process,bwrap${existsSync(imagePaths(imageDir).manifest) ? ",microvm" : ""}`
).split(",");

interface Figures {
  backend: string;
  coldStartMs: number;
  /** microVM only: a new user's agent cell, cold, to its first reply (median of three). */
  agentColdStartMs?: number;
  warmHandOutMs: number;
  roundTripMs: { p50: number; p99: number };
  throughput: { requestsPerS: number; mbPerS: number };
  idleRssMiB: number;
  runs: number;
}

const median = (xs: number[]) => percentile(xs, 50);

/** Baseline: `node -e` to its first byte (see ../node-baseline.ts), and the RSS of an idle node. */
async function nodeBaseline(runs: number): Promise<NodeBaseline & { idleRssMiB: number }> {
  const spawned = await nodeSpawnBaseline(runs);
  const idle = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
    stdio: "ignore",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  await new Promise((r) => setTimeout(r, 1500));
  const rss = idle.pid ? await treeRssBytes(idle.pid) : 0;
  idle.kill();
  return { ...spawned, idleRssMiB: rss / 1048576 };
}

function makeBackend(name: string): CellBackend {
  if (name === "process") return createProcessBackend({ runtime, onWarning: () => {} });
  if (name === "bwrap") return createBwrapBackend({ runtime });
  if (name === "microvm")
    return createMicrovmBackend({ paths: imagePaths(imageDir), allowTcg: true, onWarning: () => {} });
  throw new Error(`unknown backend ${name}`);
}

async function firstReply(cell: CellHandle): Promise<void> {
  await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 120_000 });
}

async function measure(name: string, home: string): Promise<Figures> {
  const backend = makeBackend(name);
  const slow = name === "microvm";
  // The warden settles KVM or TCG when it starts (backend-factory.ts), not during a user's cell start.
  if ("accel" in backend && typeof backend.accel === "function") await backend.accel();
  const runs = slow ? 3 : 7;
  const spec = { handler: "echo" as const, startTimeoutMs: 180_000 };
  const usersDir = join(home, name);
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cell = await backend.start({ ...spec, userId: `cold${i}`, userDir: join(usersDir, `cold${i}`) });
    await firstReply(cell);
    cold.push(performance.now() - started);
    await cell.stop();
  }

  // The product's handler, where cells cannot be pooled: a new user's agent cell, cold, to its first reply.
  const agentCold: number[] = [];
  for (let i = 0; slow && i < 3; i++) {
    const started = performance.now();
    const cell = await backend.start({
      handler: "agent",
      startTimeoutMs: 180_000,
      userId: `agent${i}`,
      userDir: join(usersDir, `agent${i}`),
    });
    await firstReply(cell);
    agentCold.push(performance.now() - started);
    await cell.stop();
  }

  const pool = new WarmPool({ backend, usersDir, size: 1, spec });
  const manager = new CellManager({ backend, usersDir, warmPool: pool, spec, idleStopMs: 0 });
  const handOut: number[] = [];
  for (let i = 0; i < (slow ? 1 : 5); i++) {
    await pool.prewarm([`warm${i}`]);
    const started = performance.now();
    const cell = await manager.get(`warm${i}`);
    handOut.push(performance.now() - started);
    await firstReply(cell);
  }

  const cell = await manager.get("warm0");
  const rtt: number[] = [];
  for (let i = 0; i < (slow ? 100 : 500); i++) {
    const started = performance.now();
    await cell.call({ type: "FileOpRequest", op: "list", path: "." });
    rtt.push(performance.now() - started);
  }
  const text = "x".repeat(4096);
  const total = slow ? 300 : 2000;
  const before = { ...cell.peer.stats };
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < total) {
        next++;
        await cell.call({ type: "UserMessage", text });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const bytes = cell.peer.stats.bytesIn - before.bytesIn + cell.peer.stats.bytesOut - before.bytesOut;

  await new Promise((r) => setTimeout(r, 2000));
  const rss = await Promise.all(
    manager.list().map(async (c) => (await manager.cell(c.userId)?.stats())?.hostRssBytes ?? 0),
  );
  await manager.stopAll();
  return {
    backend: name,
    coldStartMs: median(cold),
    ...(agentCold.length > 0 ? { agentColdStartMs: median(agentCold) } : {}),
    warmHandOutMs: median(handOut),
    roundTripMs: { p50: median(rtt), p99: percentile(rtt, 99) },
    throughput: { requestsPerS: total / seconds, mbPerS: bytes / 1048576 / seconds },
    idleRssMiB: median(rss) / 1048576,
    runs,
  };
}

const home = await mkdtemp(join(tmpdir(), "ironclaw-bench-cells-"));
await chmod(home, 0o755);
const loadBefore = formatLoad();
try {
  const baseline = await nodeBaseline(10);
  const results: Figures[] = [];
  for (const name of wanted) {
    process.stderr.write(`measuring ${name}…\n`);
    results.push(await measure(name, home));
  }
  let handOuts: HandOutFigures[] | undefined;
  if (wanted.includes("bwrap")) {
    process.stderr.write("measuring blank pool hand-outs…\n");
    handOuts = await measureBlankHandOut(makeBackend("bwrap"), join(home, "blank"));
  }
  const resumes: ResumeFigures[] = [];
  if (wanted.includes("microvm")) {
    process.stderr.write("measuring microVM cells suspended and resumed…\n");
    const backend = makeBackend("microvm");
    for (const handler of ["echo", "agent"] as const)
      resumes.push(await measureMicrovmResume(backend, join(home, "resume"), handler));
  }
  let runtimes: RuntimeFigures[] = [];
  if (wanted.includes("bwrap") && bundled) {
    process.stderr.write("measuring dist against the bundle in bwrap cells…\n");
    runtimes = await compareRuntimes(home);
  }
  let variants: VariantFigures[] = [];
  let cgroupSetup: Awaited<ReturnType<typeof measureCgroupSetup>>;
  if (wanted.includes("bwrap")) {
    process.stderr.write("measuring bwrap variants (cgroups, brain images, word table)…\n");
    variants = await measureBwrapVariants(home, runtime);
    cgroupSetup = await measureCgroupSetup();
  }
  const f = (n: number, d = 1) => n.toFixed(d);
  console.log(`runtime: ${runtime.kind}; load average before ${loadBefore}, after ${formatLoad()}`);
  console.log(`baseline: ${describeBaseline(baseline)}; idle node RSS ${f(baseline.idleRssMiB)} MiB`);
  console.log(
    "backend  | cold→1st reply     | warm hand-out | RTT p50/p99 ms | throughput          | idle RSS",
  );
  for (const r of results) {
    console.log(
      `${r.backend.padEnd(8)} | ${f(r.coldStartMs).padStart(7)} ms (${f(r.coldStartMs / baseline.spawnMs)}×) | ` +
        `${f(r.warmHandOutMs, 2).padStart(8)} ms  | ${f(r.roundTripMs.p50, 2)}/${f(r.roundTripMs.p99, 2)}`.padEnd(
          14,
        ) +
        ` | ${f(r.throughput.requestsPerS, 0)} req/s ${f(r.throughput.mbPerS)} MB/s | ${f(r.idleRssMiB)} MiB (${f(r.idleRssMiB / baseline.idleRssMiB)}×)`,
    );
  }
  for (const r of results)
    if (r.agentColdStartMs !== undefined)
      console.log(
        `${r.backend} agent cell, new user: cold → 1st reply ${f(r.agentColdStartMs)} ms (median of 3)`,
      );
  if (variants.length > 0) {
    const base = variants[0];
    const agentBase = variants.find((v) => v.handler === "agent");
    console.log("\nbwrap start by variant (median; ratio against the first variant of its handler)");
    if (cgroupSetup)
      console.log(
        `cgroup setup alone (create with limits + remove): ${f(cgroupSetup.medianMs, 2)} ms median of ${cgroupSetup.runs}`,
      );
    console.log(`${"variant".padEnd(42)} | handler | new user's first start | restart`);
    for (const v of variants) {
      const ref = v.handler === "agent" ? agentBase : base;
      const cell = (ms: number, refMs: number | undefined) =>
        `${f(ms).padStart(8)} ms (${f(ms / (refMs ?? Number.NaN), 2)}×)`;
      console.log(
        `${v.variant.padEnd(42)} | ${v.handler.padEnd(7)} | ${cell(v.coldStartMs, ref?.coldStartMs).padEnd(22)} | ${cell(v.restartMs, ref?.restartMs)}`,
      );
    }
  }
  printStartupReport({
    nodeMs: baseline.spawnMs,
    coldStartMs: (backend) => results.find((r) => r.backend === backend)?.coldStartMs,
    runtimes,
    handOuts,
    resumes,
  });
  const out = join(PACKAGE_ROOT, "bench/results");
  await mkdir(out, { recursive: true });
  const file = join(out, `cells-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), runtime: runtime.kind, load: { before: loadBefore, after: formatLoad() }, baseline, results, handOuts, resumes, runtimes, variants, cgroupSetup }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
} finally {
  await rm(home, { recursive: true, force: true });
}
