import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSyncTrace } from "./sync-trace.js";

const dir = mkdtempSync(join(tmpdir(), "ironclaw-sync-trace-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A trace as `strace -f -y` writes it for writer 4242 and ledger /l/ledger.db. */
function trace(lines: string[]): string {
  const file = join(dir, `${lines.length}-${Math.random()}.trace`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}
const sync = "4242  fdatasync(7</l/ledger.db-wal>) = 0";
const ack = (n: number) => `4242  write(1<pipe:[99]>, "ack ${n} ev${n}\\n", 10) = 10`;

describe("reading a writer's sync trace", () => {
  it("counts each ack that reached the pipe, and those printed with no sync since the previous one", () => {
    const file = trace([
      sync,
      ack(1),
      sync,
      ack(2),
      ack(3),
      '4243  write(1<pipe:[99]>, "ack 9 x\\n", 8) = 8',
    ]);
    expect(readSyncTrace(file, 4242, "/l/ledger.db")).toEqual({
      acks: 3,
      ackAttempts: 3,
      unsynced: 1,
      syncs: 2,
    });
  });

  it("counts an ack write the kill interrupted as begun but not as reaching the pipe; one that resumed as both", () => {
    const file = trace([
      sync,
      '4242  write(1<pipe:[99]>, "ack 1 ev1\\n", 10 <unfinished ...>',
      "4243  futex(0x1, FUTEX_WAKE, 1) = 0",
      "4242  <... write resumed>) = 10",
      sync,
      '4242  write(1<pipe:[99]>, "ack 2 ev2\\n", 10) = ?',
      sync,
      '4242  write(1<pipe:[99]>, "ack 3 ev3\\n", 10 <unfinished ...>',
      "4242  +++ killed by SIGKILL +++",
    ]);
    expect(readSyncTrace(file, 4242, "/l/ledger.db")).toEqual({
      acks: 1,
      ackAttempts: 3,
      unsynced: 0,
      syncs: 3,
    });
  });

  it("holds a write begun with no sync since the last ack as unsynced, whether or not the kill let it finish", () => {
    const file = trace([sync, ack(1), '4242  write(1<pipe:[99]>, "ack 2 ev2\\n", 10 <unfinished ...>']);
    expect(readSyncTrace(file, 4242, "/l/ledger.db")).toEqual({
      acks: 1,
      ackAttempts: 2,
      unsynced: 1,
      syncs: 1,
    });
  });
});
