import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { staleCompiledSource } from "./cli-entry.js";

describe("staleCompiledSource", () => {
  let root = "";
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function tree(): { src: string; dist: string } {
    root = mkdtempSync(join(tmpdir(), "ironclaw-cli-entry-"));
    const src = join(root, "src");
    const dist = join(root, "dist");
    mkdirSync(join(src, "cli"), { recursive: true });
    mkdirSync(join(dist, "cli"), { recursive: true });
    writeFileSync(join(src, "cli/main.ts"), "export {};\n");
    writeFileSync(join(src, "cli/main.test.ts"), "export {};\n");
    writeFileSync(join(dist, "cli/main.js"), "export {};\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(src, "cli/main.ts"), past, past);
    return { src, dist };
  }

  it("finds nothing when every source has a newer compiled twin (tests are not compiled)", () => {
    const { src, dist } = tree();
    expect(staleCompiledSource(src, dist)).toBeUndefined();
  });

  it("names a source edited after the build", () => {
    const { src, dist } = tree();
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(src, "cli/main.ts"), future, future);
    expect(staleCompiledSource(src, dist)).toBe(join(src, "cli/main.ts"));
  });

  it("names a source never compiled", () => {
    const { src, dist } = tree();
    writeFileSync(join(src, "cli/new-command.ts"), "export {};\n");
    expect(staleCompiledSource(src, dist)).toBe(join(src, "cli/new-command.ts"));
  });
});
