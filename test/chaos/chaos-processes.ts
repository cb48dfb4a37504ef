import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptEntry } from "../support/built-script.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NODE_SCRIPT = fileURLToPath(new URL("./chaos-node.ts", import.meta.url));

export type Role = "daemon" | "worker" | "duty";

/** One running chaos-node.ts process: what it printed, and its end. */
export interface ChaosProcess {
  role: Role;
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

export function spawnNode(role: Role, env: NodeJS.ProcessEnv): ChaosProcess {
  const child = spawn(process.execPath, [...scriptEntry(NODE_SCRIPT), role], {
    cwd: REPO_ROOT,
    env: { ...process.env, IRONCLAW_LOG: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { role, child, output: () => out, exited };
}

/** SIGKILL, as a crash or an OOM killer ends a process: no handler runs, nothing is flushed. */
export async function killHard(p: ChaosProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await p.exited;
}

/**
 * A small seeded PRNG (mulberry32): the same seed gives the same kill schedule, which victims and which pauses.
 * When the kills land in an order's life still depends on the machine's pace.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed from IRONCLAW_CHAOS_SEED (to replay one), or a new one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.IRONCLAW_CHAOS_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`IRONCLAW_CHAOS_SEED: must be an integer from 0 to 4294967295, not ${given}`);
    return seed;
  }
  return Math.floor(Math.random() * 0x100000000);
}
