import { readdir, readFile } from "node:fs/promises";

/**
 * Every process a tool call starts inherits this variable with the call's own random value. `setsid` and
 * `nohup` leave the process group, but not the environment, so after the call the runtime can still find
 * (through /proc) and kill what the call left behind. A command that scrubs its environment escapes this;
 * inside a cell the tool sandbox's pid namespace is what holds, this is the fallback without one.
 */
export const TOOL_RUN_ENV = "IRONCLAW_TOOL_RUN";

/** Kills every process carrying the marker, repeating while new ones appear; returns how many it killed. */
export async function killMarkedProcesses(marker: string, maxRounds = 20): Promise<number> {
  const needle = Buffer.from(`${TOOL_RUN_ENV}=${marker}\0`);
  const killed = new Set<number>();
  for (let round = 0; round < maxRounds; round++) {
    const found = await findMarked(needle);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch {
        // gone already
      }
    }
    // A process being killed still shows in /proc for a moment; give the kernel a beat before looking again.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return killed.size;
}

const NUL = Buffer.from([0]);

async function findMarked(needle: Buffer): Promise<number[]> {
  const names = await readdir("/proc").catch(() => [] as string[]);
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    // Only our own uid's processes are readable here, which are the only ones a tool could have started.
    const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
    if (environ && (environ.indexOf(needle) === 0 || environ.includes(Buffer.concat([NUL, needle]))))
      found.push(pid);
  }
  return found;
}
