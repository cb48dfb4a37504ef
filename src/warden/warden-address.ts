import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Where the running warden listens, written into IRONCLAW_HOME when it starts serving: `ironclaw user
// login-link` runs in another process and would otherwise only know the configured port, which `serve --port`
// (or port 0) overrides. Removed when the warden stops; a record left by a warden that died is ignored.

export const WARDEN_ADDRESS_FILE = "warden.address.json";

interface AddressRecord {
  url: string;
  pid: number;
  started_at: string;
}

/** Records `url` as this process's listening address (written whole, then renamed into place). */
export function recordWardenAddress(home: string, url: string): void {
  const record: AddressRecord = { url, pid: process.pid, started_at: new Date().toISOString() };
  const path = join(home, WARDEN_ADDRESS_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
  renameSync(temporary, path);
}

/** Removes the record if it is this process's (a newer warden's record stays). */
export function forgetWardenAddress(home: string): void {
  if (readRecord(home)?.pid === process.pid) rmSync(join(home, WARDEN_ADDRESS_FILE), { force: true });
}

/** The running warden's URL, or undefined when none is recorded or its process is gone. */
export function runningWardenUrl(home: string): string | undefined {
  const record = readRecord(home);
  if (!record || !isAlive(record.pid)) return undefined;
  return record.url;
}

function readRecord(home: string): AddressRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(join(home, WARDEN_ADDRESS_FILE), "utf8")) as Partial<AddressRecord>;
    if (typeof value.url !== "string" || !/^https?:\/\//.test(value.url)) return undefined;
    if (typeof value.pid !== "number" || !Number.isInteger(value.pid) || value.pid <= 0) return undefined;
    return { url: value.url, pid: value.pid, started_at: String(value.started_at ?? "") };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (a warden run as root, a CLI run as its operator).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
