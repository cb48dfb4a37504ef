// Evolution store benchmark: `node --import tsx bench/evolution/run.ts [envelopes] [--before <checkout>]`
// (default 100000). Ingests a mix of session_started and session_feedback events — single envelopes, lists of 10,
// batches of 100 and 1000 — into a new store, against appending the same payload bytes to a JSONL file with an
// fsync per payload and with none, in the same run; then reopens the full store against reading and parsing its
// files, and rebuilds its projections. `--before` names another checkout (e.g. `git archive <commit> src | tar
// -x -C /tmp/before`, with node_modules linked) whose store is measured beside this one, for a before/after.
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as current from "../../src/evolution/store/index.js";
import { formatTable } from "../agent/timing.js";
import { percentile } from "../percentile.js";
import {
  appendAll,
  type IngestFigures,
  ingestAll,
  parseFiles,
  remove,
  reopen,
  reproject,
  type StoreBuild,
  scratch,
} from "./measure.js";
import { buildWorkload, DEFAULT_MIX, envelopeCount } from "./workload.js";

const args = process.argv.slice(2);
const beforeAt = args.indexOf("--before");
const beforeDir = beforeAt >= 0 ? args.splice(beforeAt, 2)[1] : undefined;
const ENVELOPES = Number(args[0] ?? 100_000);

const builds: Array<{ name: string; build: StoreBuild }> = [{ name: "store", build: current }];
if (beforeDir) {
  const url = pathToFileURL(resolve(beforeDir, "src/evolution/store/index.ts")).href;
  builds.push({ name: "store before", build: (await import(url)) as StoreBuild });
}

const scale = ENVELOPES / envelopeCount(buildWorkload(DEFAULT_MIX));
const mix = DEFAULT_MIX.map(({ size, payloads }) => ({
  size,
  payloads: Math.max(1, Math.round(payloads * scale)),
}));
const payloads = buildWorkload(mix);
const total = envelopeCount(payloads);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
console.log(`${total} envelopes in ${payloads.length} payloads; load average ${load()} (${process.version})`);

const root = scratch("run");
// One small untimed pass each, numbered apart from the timed events: the JIT warms for every build alike.
const warmUp = buildWorkload(
  DEFAULT_MIX.map(({ size }) => ({ size, payloads: 2 })),
  10_000_000,
);
appendAll(join(root, "warm.jsonl"), warmUp, true);
for (const { name, build } of builds) ingestAll(build, join(root, `warm ${name}`), warmUp);
const ingest: Record<string, IngestFigures> = {};
ingest["JSONL, no fsync"] = appendAll(join(root, "nosync.jsonl"), payloads, false);
ingest["JSONL, fsync per payload"] = appendAll(join(root, "fsync.jsonl"), payloads, true);
for (const { name, build } of builds) ingest[name] = ingestAll(build, join(root, name), payloads);
const baseline = ingest["JSONL, fsync per payload"] as IngestFigures;

const s = (ms: number) => (ms / 1000).toFixed(2);
const ratio = (a: number, b: number) => `${(a / (b || 1)).toFixed(2)}×`;
const rate = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString("en");
console.log(
  `\n${formatTable(
    [`ingest ${total} envelopes`, "wall s", "CPU s", "envelopes/s", "per CPU s", "wall ÷ fsync JSONL"],
    Object.entries(ingest).map(([name, f]) => [
      name,
      s(f.wallMs),
      s(f.cpuMs),
      rate(f.envelopes, f.wallMs),
      rate(f.envelopes, f.cpuMs),
      ratio(f.wallMs, baseline.wallMs),
    ]),
  )}`,
);
const sizeRows = baseline.bySize.flatMap(({ size, payloads: count }, i) =>
  Object.entries(ingest).map(([name, f]) => {
    const times = f.bySize[i]?.payloadMs ?? [];
    const p50 = percentile(times, 50);
    return [
      `${size} × ${count}`,
      name,
      p50.toFixed(2),
      percentile(times, 99).toFixed(2),
      rate(size, p50),
      ratio(p50, percentile(baseline.bySize[i]?.payloadMs ?? [], 50)),
    ];
  }),
);
console.log(
  `\n${formatTable(["envelopes × payloads", "", "p50 ms", "p99 ms", "envelopes/s at p50", "p50 ÷ fsync JSONL"], sizeRows)}`,
);

const reopened = builds.map(({ name, build }) => ({
  name,
  parse: parseFiles(build, join(root, name)),
  ...reopen(build, join(root, name)),
}));
const rebuilt = builds.map(({ name, build }) => ({ name, ...reproject(build, join(root, name)) }));
const reopenRows = reopened.flatMap((r) => [
  [
    `read + JSON.parse every line (${r.name}'s files)`,
    r.parse.wallMs.toFixed(0),
    r.parse.cpuMs.toFixed(0),
    "",
    "1.00×",
  ],
  [
    `${r.name}: open, ${r.envelopes} envelopes + ${r.projected} projections`,
    r.wallMs.toFixed(0),
    r.cpuMs.toFixed(0),
    rate(r.envelopes, r.wallMs),
    ratio(r.wallMs, r.parse.wallMs),
  ],
]);
for (const r of rebuilt)
  reopenRows.push([
    `${r.name}: open, projecting ${r.projected} missing`,
    r.wallMs.toFixed(0),
    r.cpuMs.toFixed(0),
    `${rate(r.projected, r.wallMs)} proj.`,
    `${ratio(r.wallMs, reopened.find((o) => o.name === r.name)?.wallMs ?? 0)} open`,
  ]);
console.log(`\n${formatTable(["reopen", "wall ms", "CPU ms", "envelopes/s", "ratio"], reopenRows)}`);
console.log(`\nload average at the end ${load()}`);
remove(root);

const results = {
  node: process.version,
  loadAverage: loadavg(),
  mix,
  envelopes: total,
  ingest,
  reopened,
  rebuilt,
};
await mkdir(join(import.meta.dirname, "../results"), { recursive: true });
const out = join(
  import.meta.dirname,
  "../results",
  `evolution-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`,
);
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${out}`);
