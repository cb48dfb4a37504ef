import { describe, expect, it } from "vitest";
import { runProgramViaHelper } from "./program-runner.js";

describe("programs started through the helper", () => {
  it("report their output and exit status, and run one after another", async () => {
    const failed = await runProgramViaHelper("sh", ["-c", "echo out; echo err >&2; exit 3"]);
    expect(failed).toMatchObject({ ok: false, code: 3, stdout: "out\n", stderr: "err\n", timedOut: false });
    const both = await Promise.all([
      runProgramViaHelper("echo", ["one"]),
      runProgramViaHelper("echo", ["two"]),
    ]);
    expect(both.map((r) => [r.ok, r.stdout])).toEqual([
      [true, "one\n"],
      [true, "two\n"],
    ]);
  });

  it("are started by the helper, not by the calling process", async () => {
    const parent = Number((await runProgramViaHelper("sh", ["-c", "echo $PPID"])).stdout);
    expect(parent).toBeGreaterThan(0);
    expect(parent).not.toBe(process.pid);
  });

  it("are killed at their time limit, and a missing program is an outcome, not a throw", async () => {
    const slow = await runProgramViaHelper("sleep", ["5"], 200);
    expect([slow.ok, slow.timedOut]).toEqual([false, true]);
    const missing = await runProgramViaHelper("/nonexistent/program", []);
    expect(missing.ok).toBe(false);
    expect(missing.error).toMatch(/ENOENT/);
  });
});
