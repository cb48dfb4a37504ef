import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultRuntime, newestSourceMtime } from "./guest-runtime.js";

describe("the inmate runtime a host running from its sources chooses", () => {
  let root = "";
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    delete process.env.IRONCLAW_INMATE;
  });

  /** A package with two sources, a test and a built bundle, each at `at` seconds from now. */
  function pkg(at: { source: number; test: number; bundle: number }): string {
    root = mkdtempSync(join(tmpdir(), "ironclaw-guest-runtime-"));
    const when = (s: number) => new Date(Date.now() + s * 1000);
    const file = (path: string, s: number) => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), path.endsWith(".json") ? '{"packages":[]}' : "");
      utimesSync(join(root, path), when(s), when(s));
    };
    file("src/inmate/irowclaw.ts", -100);
    file("src/memory/search/rank.ts", at.source);
    file("src/memory/search/rank.test.ts", at.test);
    file("dist/cell/bundle.json", at.bundle);
    file("dist/cell/irowclaw.cjs", at.bundle);
    return root;
  }

  it("takes the newest source, never a test", () => {
    const dir = pkg({ source: -50, test: 50, bundle: -10 });
    const newest = newestSourceMtime(join(dir, "src"));
    expect(Math.round(((newest ?? 0) - Date.now()) / 1000)).toBe(-50);
  });

  it("runs the bundle when it was built after every source", () => {
    expect(defaultRuntime(pkg({ source: -50, test: 50, bundle: -10 })).kind).toBe("bundle");
  });

  it("runs the sources when one changed after the bundle was built, or when asked to", () => {
    expect(defaultRuntime(pkg({ source: -5, test: -50, bundle: -10 })).kind).toBe("source");
    process.env.IRONCLAW_INMATE = "source";
    expect(defaultRuntime(pkg({ source: -50, test: -50, bundle: -10 })).kind).toBe("source");
  });
});
