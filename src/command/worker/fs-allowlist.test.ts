import { describe, expect, it } from "vitest";
import type { JobMessage } from "../../contracts/index.js";
import { fsAllowlistOf } from "./fs-allowlist.js";

const jobWith = (fs_allowlist?: string[]) =>
  ({
    tool_policy: { network: false, ...(fs_allowlist ? { fs_allowlist } : {}) },
    constraints: { budget_seconds: 60, max_retries: 1 },
  }) as JobMessage;

describe("an order's fs_allowlist", () => {
  it("allows the whole worktree when absent, or given as ./ or ./*", () => {
    expect(fsAllowlistOf(jobWith())).toBeUndefined();
    for (const entry of ["./", "./*"]) {
      const allow = fsAllowlistOf(jobWith([entry]));
      expect([allow?.("a.md"), allow?.("src/deep/b.ts")]).toEqual([true, true]);
    }
  });

  it("allows a named folder with everything below it, and globs within one name or across folders", () => {
    const allow = fsAllowlistOf(jobWith(["./docs", "./src/*.ts", "tests/**/*.test.ts"]));
    expect(allow?.("docs/guide/intro.md")).toBe(true);
    expect(allow?.("src/index.ts")).toBe(true);
    expect(allow?.("src/lib/index.ts")).toBe(false);
    expect(allow?.("tests/unit/a.test.ts")).toBe(true);
    expect(allow?.("package.json")).toBe(false);
    expect(allow?.("docsx/a.md")).toBe(false);
  });

  it("reads the allowlist from the constraints' tool policy when the job's own has none", () => {
    const job = {
      ...jobWith(),
      constraints: {
        budget_seconds: 60,
        max_retries: 1,
        tool_policy: { network: false, fs_allowlist: ["./out/"] },
      },
    } as JobMessage;
    expect(fsAllowlistOf(job)?.("out/report.md")).toBe(true);
    expect(fsAllowlistOf(job)?.("README.md")).toBe(false);
  });
});
