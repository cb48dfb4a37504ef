// How long a flood of link renames in a brain stops the event loop: node's own recursive watcher (the baseline,
// in a child of its own, since its loop does not come back while the flood goes on) against the brain watcher,
// which sheds the flood. Both meet the same flood over the same brain in the same run; the ratio is printed.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BrainLayout, watchBrain } from "../../src/memory/index.js";
import { readLoadAverage } from "./stats.js";

const FLOOD_MS = 3000;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Swaps a link to `config/` into `d0/flip` as fast as it can, over and over. */
function startFlood(root: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      "-e",
      `const fs=require("fs");const d=process.argv[1];let i=0;
       for(;;){try{fs.symlinkSync(d+"/config",d+"/d0/l"+(i%4));fs.renameSync(d+"/d0/l"+(i%4),d+"/d0/flip");}catch{}i++;}`,
      root,
    ],
    { stdio: "ignore" },
  );
}

/** A brain of 200 notes in 10 folders. */
async function floodBrain(): Promise<{ dir: string; root: string }> {
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-flood-"));
  const root = join(dir, "brain");
  const files: Record<string, string> = { "config/irowclaw.toml": "" };
  for (let d = 0; d < 10; d++) for (let f = 0; f < 20; f++) files[`d${d}/n${f}.md`] = `note ${f}`;
  await mkdir(join(root, "db"), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return { dir, root };
}

/** The longest gap between a child's 20 ms ticks while node's recursive watcher meets the flood. */
async function nodeWatcherStall(root: string): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `require("fs").watch(process.argv[1],{recursive:true},()=>{});
       setInterval(()=>process.stdout.write("t"),20);`,
      root,
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let last = 0;
  let longest = 0;
  child.stdout?.on("data", () => {
    const now = Date.now();
    if (last > 0) longest = Math.max(longest, now - last);
    last = now;
  });
  while (last === 0) await settle(20);
  const flood = startFlood(root);
  try {
    await settle(FLOOD_MS);
    return Math.max(longest, Date.now() - last);
  } finally {
    flood.kill("SIGKILL");
    child.kill("SIGKILL");
  }
}

/** The longest this process went without running a 20 ms timer while the brain watcher meets the flood. */
async function brainWatcherStall(root: string): Promise<{ stall: number; shed: number }> {
  let shed = 0;
  const watcher = watchBrain(BrainLayout.open(root), () => {}, {
    debounceMs: 50,
    pauseMs: 300,
    onError: () => shed++,
  });
  await settle(200);
  const flood = startFlood(root);
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 20);
  try {
    await settle(FLOOD_MS);
    return { stall: Math.max(longest, Date.now() - last), shed };
  } finally {
    clearInterval(timer);
    flood.kill("SIGKILL");
    watcher.close();
  }
}

const loadStart = readLoadAverage();
const baseline = await floodBrain();
const ours = await floodBrain();
try {
  const nodeStall = await nodeWatcherStall(baseline.root);
  const brain = await brainWatcherStall(ours.root);
  console.log(`flood of link renames for ${FLOOD_MS} ms over 200 notes in 10 folders`);
  console.log(`  node's recursive watcher: longest stall ${nodeStall} ms`);
  console.log(`  brain watcher:            longest stall ${brain.stall} ms (shed the flood ${brain.shed}×)`);
  console.log(`  ratio (node / brain):     ${(nodeStall / Math.max(1, brain.stall)).toFixed(1)}×`);
  console.log(`  load average: ${loadStart.join(" ")} → ${readLoadAverage().join(" ")}`);
} finally {
  await rm(baseline.dir, { recursive: true, force: true });
  await rm(ours.dir, { recursive: true, force: true });
}
