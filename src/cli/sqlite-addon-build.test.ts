import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { abortsWhenCollected, betterSqliteAddon } from "./sqlite-addon-build.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-addon-build-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a better-sqlite3 build that Node aborts on", () => {
  it("is recognised by the cleanup-hook removal Node 24.19+'s ObjectWrap compiles in", async () => {
    const file = join(dir, "addon.node");
    writeFileSync(
      file,
      Buffer.from("\x7fELF\0_ZN4node28RemoveEnvironmentCleanupHookEPN2v87IsolateEPFvPvES3_\0"),
    );
    expect(await abortsWhenCollected(file)).toBe(true);
    writeFileSync(
      file,
      Buffer.from("\x7fELF\0_ZN4node25AddEnvironmentCleanupHookEPN2v87IsolateEPFvPvES3_\0"),
    );
    expect(await abortsWhenCollected(file)).toBe(false);
  });

  it("is not the build the suite runs on (with-node24.sh compiles against 24.18.1's headers)", async () => {
    expect(await abortsWhenCollected(betterSqliteAddon())).toBe(false);
  });
});
