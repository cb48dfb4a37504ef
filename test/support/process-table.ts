import { readdirSync, readFileSync } from "node:fs";

/** Pids of live (not zombie) processes in a process group, read from /proc. */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command name, which is in parentheses and may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    const group = Number(fields[2]);
    if (group === pgid && state !== "Z" && state !== "X") members.push(Number(entry));
  }
  return members;
}

/** Pids of live processes whose real uid is `uid`, read from /proc. */
export function processesOfUid(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const state = /^State:\s*(\S)/m.exec(status)?.[1];
      if (Number(/^Uid:\s*(\d+)/m.exec(status)?.[1]) === uid && state !== "Z") pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
