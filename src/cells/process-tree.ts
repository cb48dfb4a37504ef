import { readdir, readFile } from "node:fs/promises";

/** Resident memory (bytes) of a process and all its descendants, read from /proc; 0 when it is gone. */
export async function treeRssBytes(rootPid: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    // The command name may contain spaces and parentheses: the fields after the last ")" are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(ppid)) parents.set(pid, ppid);
  }
  const tree = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const pid of tree) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    if (kb) total += Number(kb) * 1024;
  }
  return total;
}
