import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProgram, runProgramViaHelper } from "./program-runner.js";

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

  it("run where and with what they are given: a folder, an environment of their own, bytes on stdin", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ironclaw-runner-"));
    try {
      for (const run of [runProgramViaHelper, runProgram]) {
        // A shell's own default-value expansions, not a template.
        const shell = 'pwd; echo "$' + "{ONLY:-unset} $" + '{HOME:-no-home}"; cat';
        const outcome = await run("sh", ["-c", shell], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ONLY: "mine" },
          input: "from stdin",
        });
        expect(outcome.stdout).toBe(`${dir}\nmine no-home\nfrom stdin`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("decode their output whole, so a character split across two reads stays one", async () => {
    // One byte, then 70,000 bytes of "é" (two bytes each): a pipe's 64 KiB read ends mid-character.
    const script = "process.stdout.write('x' + '\u00e9'.repeat(35000))";
    for (const run of [runProgramViaHelper, runProgram]) {
      const outcome = await run(process.execPath, ["-e", script]);
      expect(outcome.stdout).toBe(`x${"é".repeat(35_000)}`);
    }
  });

  it("run again from the caller when the helper dies under them, unless they may run only once", async () => {
    const helperPid = Number((await runProgramViaHelper("sh", ["-c", "echo $PPID"])).stdout);
    const again = runProgramViaHelper("sh", ["-c", "sleep 0.5; echo $PPID"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(helperPid, "SIGKILL");
    expect(Number((await again).stdout)).toBe(process.pid);

    const nextHelper = Number((await runProgramViaHelper("sh", ["-c", "echo $PPID"])).stdout);
    expect(nextHelper).not.toBe(helperPid);
    const once = runProgramViaHelper("sh", ["-c", "sleep 0.5; echo ran"], { once: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(nextHelper, "SIGKILL");
    const outcome = await once;
    expect(outcome).toMatchObject({ ok: false, code: null, stdout: "" });
    expect(outcome.error).toMatch(/exited while sh ran/);
  });
});
