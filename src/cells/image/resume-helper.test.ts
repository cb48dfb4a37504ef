import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildResumeHelper } from "./resume-helper.js";

let dir = "";
let helper = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-resume-helper-"));
  helper = join(dir, "cell-resume");
  const built = await buildResumeHelper(helper);
  if (!built.ok) throw new Error(`the resume helper did not build here: ${built.reason}`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the helper where it holds no privilege (its own user namespace), so it can never set this host's clock. */
function run(args: string[], input: string): { status: number | null; stderr: string } {
  const result = spawnSync(
    "bwrap",
    ["--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--", helper, ...args],
    { input, encoding: "utf8" },
  );
  return { status: result.status, stderr: result.stderr };
}

const entropy = "ab".repeat(64);

describe("the cell's resume helper", () => {
  it("refuses what it cannot use, before touching the clock", () => {
    expect(run([], entropy)).toMatchObject({ status: 2, stderr: expect.stringContaining("usage") });
    expect(run(["soon"], entropy)).toMatchObject({ status: 2, stderr: expect.stringContaining("bad time") });
    expect(run(["1795000000000"], "")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("no entropy"),
    });
    expect(run(["1795000000000"], "abcd\n")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("want 32 to 256 bytes"),
    });
    expect(run(["1795000000000"], `${"zz".repeat(40)}\n`)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("not hex"),
    });
  });

  it("sets the clock first, and fails plainly where it may not", () => {
    const result = run(["1795000000000"], `${entropy}\n`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("clock_settime");
  });
});
