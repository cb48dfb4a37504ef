// The baseline cell start-ups are compared with: spawn `node -e` and wait for its first byte on stdout. It runs
// with the environment a cell gets (PATH only). A caller's NODE_* variables can cost more than a cell's whole
// runtime load: NODE_EXTRA_CA_CERTS alone adds ~45 ms to every node start on a host that sets it, so a baseline
// spawned with the shell's environment would flatter every ratio. That figure is measured too, for the record.
import { spawn } from "node:child_process";
import { percentile } from "./percentile.js";

export interface NodeBaseline {
  /** Median spawn-to-first-byte with PATH only, what the ratios use. */
  spawnMs: number;
  /** The same with this process's environment. */
  inheritedEnvSpawnMs: number;
}

export async function nodeSpawnBaseline(runs: number): Promise<NodeBaseline> {
  const clean = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const times = { clean: [] as number[], inherited: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.clean.push(await firstByteMs(clean));
    times.inherited.push(await firstByteMs(process.env));
  }
  return { spawnMs: percentile(times.clean, 50), inheritedEnvSpawnMs: percentile(times.inherited, 50) };
}

function firstByteMs(env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["-e", "process.stdout.write('x')"], {
      stdio: ["ignore", "pipe", "ignore"],
      env,
    });
    child.stdout.once("data", () => {
      resolve(performance.now() - started);
      child.kill();
    });
  });
}

export function describeBaseline(b: NodeBaseline): string {
  return (
    `plain node -e spawn to first byte ${b.spawnMs.toFixed(1)} ms with a cell's environment (PATH only); ` +
    `${b.inheritedEnvSpawnMs.toFixed(1)} ms with this shell's`
  );
}
