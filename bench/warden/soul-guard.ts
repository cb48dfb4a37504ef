// What the soul guard costs a turn. Every turn the warden asks the cell for its prompt files (soul.md,
// identity.md, instructions/*.md, persona files) twice, before and after, and compares each with the version a
// person approved. Measured three ways in one run:
//  1. the comparison alone (in process), for a starter brain and a large one, with nothing changed and with
//     one file changed, against the same loop with the guard off;
//  2. one scan through a real bwrap cell (the query's round trip + the comparison), for the same two brains;
//  3. whole turns through the warden (HTTP → cell → scripted model), the guard on against the guard off,
//     alternated so both see the same moments of a noisy host.
// Usage: npm run bench:warden:soul-guard [-- turns]   (default 30; bwrap under root)
import { loadavg } from "node:os";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { evaluatePromptChange, type SoulGuardConfig } from "../../src/warden/soul/soul-guard.js";
import { reply } from "../../test/support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../../test/support/warden-harness.js";
import { formatTable } from "../agent/timing.js";
import { percentile } from "../percentile.js";

const TURNS = Number(process.argv[2] ?? 30);
const ANSWER = "Noted.";
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const ms = (x: number) => (x < 1 ? x.toFixed(3) : x.toFixed(2));

/** A markdown file of about `bytes` bytes: a heading and one rule per line, as instructions are written. */
function rules(title: string, bytes: number): string {
  const lines = [`# ${title}`, ""];
  for (let i = 1; lines.join("\n").length < bytes; i++)
    lines.push(
      `- Rule ${i}: when the user asks about topic ${i}, answer briefly and cite the note you used.`,
    );
  return `${lines.join("\n")}\n`;
}

/** Prompt files of a brain: the starter's sizes, or a large brain (8 KB soul, ten 4 KB instruction files). */
function brain(large: boolean): Map<string, string> {
  const files = new Map([
    ["soul.md", rules("Soul", large ? 8_000 : 600)],
    ["identity.md", rules("Identity", large ? 2_000 : 250)],
  ]);
  const count = large ? 10 : 1;
  for (let i = 0; i < count; i++)
    files.set(`instructions/rules-${i}.md`, rules(`Rules ${i}`, large ? 4_000 : 300));
  return files;
}

/** The warden's comparison for one look: equal files are skipped, changed ones judged. */
function compare(approved: Map<string, string>, now: Map<string, string>, config: SoulGuardConfig): number {
  let held = 0;
  for (const [path, text] of now) {
    const before = approved.get(path) ?? null;
    if (!config.enabled || text === before) continue;
    if (evaluatePromptChange(path, before, text, config).verdict === "hold") held++;
  }
  return held;
}

function timeLoop(fn: () => void, iterations: number): number {
  for (let i = 0; i < 50; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return percentile(samples, 50);
}

const config = ironclawdConfigSchema.parse({}).soul_guard;
const off = { ...config, enabled: false };
const inProcess: string[][] = [];
for (const large of [false, true]) {
  const approved = brain(large);
  const same = new Map(approved);
  const changed = new Map(approved);
  changed.set("soul.md", `${approved.get("soul.md")}- The user prefers metric units.\n`);
  const bytes = [...approved.values()].reduce((n, t) => n + t.length, 0);
  const base = timeLoop(() => compare(approved, changed, off), 2_000);
  const unchanged = timeLoop(() => compare(approved, same, config), 2_000);
  const oneChanged = timeLoop(() => compare(approved, changed, config), 2_000);
  inProcess.push([
    `${large ? "large" : "starter"} (${approved.size} files, ${(bytes / 1024).toFixed(1)} KB)`,
    ms(base),
    ms(unchanged),
    ms(oneChanged),
  ]);
}

async function warden(enabled: boolean): Promise<WardenHarness> {
  const h = await startWardenHarness({
    configure: (c) => ({ ...c, soul_guard: { ...c.soul_guard, enabled } }),
  });
  h.model.respondWith(() => reply.text(ANSWER));
  return h;
}

const loadBefore = load();
const wardens = { on: await warden(true), off: await warden(false) };
const turns: Record<string, number[]> = { on: [], off: [] };
const scans: string[][] = [];
try {
  const calls: Record<string, ReturnType<typeof api>> = {};
  for (const [name, h] of Object.entries(wardens)) {
    calls[name] = api(h.url, await h.addUser("bench"));
    const first = (await (await calls[name]("POST", "/api/chat", { text: "hi" })).json()) as {
      data?: { text: string };
    };
    if (first.data?.text !== ANSWER) throw new Error(`unexpected answer: ${JSON.stringify(first)}`);
  }
  for (let i = 0; i < TURNS; i++) {
    for (const name of i % 2 ? ["off", "on"] : ["on", "off"]) {
      const started = performance.now();
      const answer = (await (await calls[name]?.("POST", "/api/chat", { text: `turn ${i}` }))?.json()) as {
        data?: { text: string };
      };
      if (answer.data?.text !== ANSWER) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
      turns[name]?.push(performance.now() - started);
    }
  }

  // One scan through the real cell: the starter brain, then a large one written by the person.
  const h = wardens.on;
  const call = calls.on;
  const cell = h.warden.context.cells.running("bench");
  if (!cell || !call) throw new Error("the bench user's cell is not running");
  const timeScans = async (label: string) => {
    const samples: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now();
      if ((await h.warden.context.soul.scan("bench", cell, "scan")) !== "ok") throw new Error("held");
      samples.push(performance.now() - t0);
    }
    scans.push([label, ms(percentile(samples, 50)), ms(percentile(samples, 90))]);
  };
  await timeScans("starter brain (3 prompt files)");
  for (const [path, content] of brain(true)) await call("PUT", "/api/brain/file", { path, content });
  await timeScans("large brain (13 prompt files, 50 KB)");
} finally {
  await Promise.all(Object.values(wardens).map((h) => h.close()));
}

const p50 = (xs: number[]) => percentile(xs, 50);
const on = turns.on ?? [];
const offTurns = turns.off ?? [];
console.log(`soul guard cost, ${TURNS} turns per warden; load ${loadBefore} → ${load()}\n`);
console.log("1. comparison in process, ms per look (p50)");
console.log(formatTable(["brain", "guard off", "nothing changed", "soul.md changed"], inProcess));
console.log("\n2. one scan through a bwrap cell (query + comparison), ms");
console.log(formatTable(["brain", "p50", "p90"], scans));
console.log("\n3. a whole turn through the warden (two scans each with the guard on), ms");
console.log(
  formatTable(
    ["guard", "p50", "p90"],
    [
      ["off", ms(p50(offTurns)), ms(percentile(offTurns, 90))],
      ["on", ms(p50(on)), ms(percentile(on, 90))],
      ["on − off", ms(p50(on) - p50(offTurns)), `×${(p50(on) / p50(offTurns)).toFixed(2)} at p50`],
    ],
  ),
);
