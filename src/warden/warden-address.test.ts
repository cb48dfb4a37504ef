import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  forgetWardenAddress,
  recordWardenAddress,
  runningWardenUrl,
  WARDEN_ADDRESS_FILE,
} from "./warden-address.js";

const homes: string[] = [];
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), "ironclaw-address-"));
  homes.push(home);
  return home;
};
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe("the running warden's address", () => {
  it("is read back while the warden that wrote it runs, and gone once it forgets it", () => {
    const home = newHome();
    expect(runningWardenUrl(home)).toBeUndefined();
    recordWardenAddress(home, "http://127.0.0.1:41234");
    expect(runningWardenUrl(home)).toBe("http://127.0.0.1:41234");
    forgetWardenAddress(home);
    expect(runningWardenUrl(home)).toBeUndefined();
  });

  it("ignores a record left by a warden that died, and one that is not an address", () => {
    const home = newHome();
    // pid 2^22+1 is above Linux's pid_max default ceiling, so no process has it.
    const dead = { url: "http://127.0.0.1:5555", pid: 4_194_305, started_at: "2026-01-01T00:00:00Z" };
    writeFileSync(join(home, WARDEN_ADDRESS_FILE), JSON.stringify(dead));
    expect(runningWardenUrl(home)).toBeUndefined();
    writeFileSync(
      join(home, WARDEN_ADDRESS_FILE),
      JSON.stringify({ ...dead, pid: process.pid, url: "javascript:alert(1)" }),
    );
    expect(runningWardenUrl(home)).toBeUndefined();
    writeFileSync(join(home, WARDEN_ADDRESS_FILE), "{ not json");
    expect(runningWardenUrl(home)).toBeUndefined();
  });

  it("leaves a newer warden's record alone when an older one stops", () => {
    const home = newHome();
    const newer = { url: "http://127.0.0.1:6000", pid: 1, started_at: "2026-01-01T00:00:00Z" };
    writeFileSync(join(home, WARDEN_ADDRESS_FILE), JSON.stringify(newer));
    forgetWardenAddress(home);
    expect(runningWardenUrl(home)).toBe("http://127.0.0.1:6000");
  });
});
