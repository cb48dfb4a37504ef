import { readFileSync } from "node:fs";
import { hostname } from "node:os";

// What a process holds — a spend reservation, an integration under way — names the process, so one starting later
// can tell what a process that died (kill -9, a crash, a power cut) left behind from what one still running holds.
// A pid alone is not enough: it is reused. The pid with its start time (field 22 of /proc/<pid>/stat, in clock ticks
// since boot) names one process for the machine's uptime.

function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

/** This process: `<host>/<pid>/<start ticks>`. */
export function currentOwner(): string {
  return `${hostname()}/${process.pid}/${startTicks(process.pid) ?? "0"}`;
}

/**
 * Whether the named process still runs: false when it is provably gone, undefined when it ran on another host
 * (this one cannot tell; what it holds is left to that host).
 */
export function isOwnerAlive(owner: string | null): boolean | undefined {
  if (owner === null) return false;
  const [host, pid, ticks] = owner.split("/");
  if (host !== hostname()) return undefined;
  const number = Number(pid);
  if (!Number.isInteger(number) || number <= 0) return false;
  const now = startTicks(number);
  if (now === undefined) {
    // No /proc (not Linux): signal 0 says whether the pid exists at all.
    try {
      process.kill(number, 0);
      return ticks === "0";
    } catch {
      return false;
    }
  }
  return now === ticks;
}
