// How long a flood of link renames in a brain stops the event loop: node's own recursive watcher (the baseline,
// in a child of its own, since its loop does not come back while the flood goes on) against the brain watcher,
// which sheds the flood. Both meet the same flood over the same brain in the same run; the ratio is printed.
import { spawn } from "node:child_process";
import { type BrainLayout, watchBrain } from "../../src/memory/index.js";
import { floodBrain, startLinkFlood } from "../../test/support/memory-fixtures.js";
import { readLoadAverage } from "./stats.js";

const FLOOD_MS = 3000;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  const flood = startLinkFlood(root);
  try {
    await settle(FLOOD_MS);
    return Math.max(longest, Date.now() - last);
  } finally {
    flood.kill("SIGKILL");
    child.kill("SIGKILL");
  }
}

/** The longest this process went without running a 20 ms timer while the brain watcher meets the flood. */
async function brainWatcherStall(brain: BrainLayout): Promise<{ stall: number; shed: number }> {
  let shed = 0;
  const watcher = watchBrain(brain, () => {}, {
    debounceMs: 50,
    pauseMs: 300,
    onError: () => shed++,
  });
  await settle(200);
  const flood = startLinkFlood(brain.root);
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
  const nodeStall = await nodeWatcherStall(baseline.brain.root);
  const brain = await brainWatcherStall(ours.brain);
  console.log(`flood of link renames for ${FLOOD_MS} ms over 200 notes in 10 folders`);
  console.log(`  node's recursive watcher: longest stall ${nodeStall} ms`);
  console.log(`  brain watcher:            longest stall ${brain.stall} ms (shed the flood ${brain.shed}×)`);
  console.log(`  ratio (node / brain):     ${(nodeStall / Math.max(1, brain.stall)).toFixed(1)}×`);
  console.log(`  load average: ${loadStart.join(" ")} → ${readLoadAverage().join(" ")}`);
} finally {
  await baseline.cleanup();
  await ours.cleanup();
}
