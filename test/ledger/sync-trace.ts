import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * Durability, observed from outside: a writer run under `strace` records every fsync/fdatasync and every write
 * to its stdout. An append is durable when acknowledged only if the database was synced between the previous
 * ack and this one; killing the process cannot show that (the kernel keeps unsynced pages), a sync trace can.
 */
export interface SyncReport {
  /** Ack writes (one per append) in the trace that returned: each reached the pipe. */
  acks: number;
  /**
   * Ack writes begun, those the kill interrupted included: such a write may or may not have reached the pipe
   * (the kill can land after the kernel took the bytes but before the tracer saw the call return), so the acks a
   * reader got lie between `acks` and this.
   */
  ackAttempts: number;
  /** Ack writes begun with no sync of the database since the previous one. */
  unsynced: number;
  /** Syncs of the database file or its WAL/journal. */
  syncs: number;
}

export const STRACE_MISSING =
  "strace is needed to observe the writer's fsyncs (Debian: apt-get install strace); durability cannot be " +
  "judged from a kill alone, since the kernel keeps unsynced pages";

export function hasStrace(): boolean {
  return spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
}

/** The strace command line that runs `command` and writes the trace this module reads to `traceFile`. */
export function straceArgs(traceFile: string, command: string[]): string[] {
  return [
    "-f",
    "--seccomp-bpf",
    "-qq",
    "-y",
    "-e",
    "trace=fsync,fdatasync,write,writev",
    "-o",
    traceFile,
    "--",
    ...command,
  ];
}

/** Reads a trace of process `pid` (its main thread: SQLite syncs and Node writes stdout there) for `dbPath`. */
export function readSyncTrace(traceFile: string, pid: number, dbPath: string): SyncReport {
  const report: SyncReport = { acks: 0, ackAttempts: 0, unsynced: 0, syncs: 0 };
  let syncedSinceAck = true;
  // An ack write is judged when it begins (a sync must come first) and counted as reaching the pipe only once it
  // returned a byte count (`<unfinished ...>` then `<... write resumed> = N`, not `= ?` nor a kill).
  const beginAck = () => {
    report.ackAttempts++;
    if (!syncedSinceAck) report.unsynced++;
    syncedSinceAck = false;
  };
  const countAck = () => {
    report.acks++;
  };
  let ackUnfinished = false;
  for (const line of readFileSync(traceFile, "utf8").split("\n")) {
    const resumed = /^(\d+)\s+<\.\.\. writev? resumed>.*\)\s+=\s+\d+\s*$/.exec(line);
    if (resumed && Number(resumed[1]) === pid && ackUnfinished) {
      ackUnfinished = false;
      countAck();
      continue;
    }
    const call = /^(\d+)\s+(fsync|fdatasync|writev?)\((\d+)<([^>]*)>(.*)$/.exec(line);
    if (!call || Number(call[1]) !== pid) continue;
    const [, , name, fd, path, rest] = call as unknown as [string, string, string, string, string, string];
    if (name === "fsync" || name === "fdatasync") {
      if (path === dbPath || path.startsWith(`${dbPath}-`)) {
        report.syncs++;
        syncedSinceAck = true;
      }
    } else if (fd === "1" && /^, (?:\[\{iov_base=)?"ack /.test(rest)) {
      beginAck();
      if (rest.includes("<unfinished ...>")) ackUnfinished = true;
      else if (/\)\s+=\s+\d+\s*$/.test(rest)) countAck();
    }
  }
  return report;
}
