import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/agent/index.js";
import { liveGroupMembers } from "../support/process-table.js";
import { toolHarness } from "../support/tool-harness.js";

let base: string;
let workspace: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "ironclaw-bash-"));
  workspace = join(base, "workspace");
  mkdirSync(workspace);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function bash(options: { timeoutMs?: number; maxOutputBytes?: number } = {}) {
  return toolHarness(
    [
      createBashTool({
        workspace,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxOutputBytes: options.maxOutputBytes ?? 4096,
      }),
    ],
    [workspace],
  );
}

function pidOf(details: Record<string, unknown> | undefined): number {
  const pid = details?.pid;
  if (typeof pid !== "number") throw new Error("no pid in the result details");
  return pid;
}

describe("the bash tool", () => {
  it("runs in the workspace and returns stdout and stderr", async () => {
    const result = await bash().call("bash", { command: "pwd; echo oops >&2" });
    expect(result).toMatchObject({ isError: false, outcome: "ok" });
    expect(result.content).toBe(`${realpathSync(workspace)}\noops\n`);
  });

  it("does not hand the runtime's environment, and its keys, to commands", async () => {
    process.env.IRONCLAW_TEST_SECRET = "sk-do-not-leak";
    try {
      const result = await bash().call("bash", { command: 'echo "[$IRONCLAW_TEST_SECRET]"' });
      expect(result.content).toBe("[]\n");
    } finally {
      delete process.env.IRONCLAW_TEST_SECRET;
    }
  });

  it("reports a failing command as an error with its exit code", async () => {
    const result = await bash().call("bash", { command: "echo partial; exit 3" });
    expect(result).toMatchObject({ isError: true, outcome: "error" });
    expect(result.content).toBe("partial\n\n[exit code 3]");
  });

  it("cuts output at the cap and says how much was dropped", async () => {
    const result = await bash({ maxOutputBytes: 1000 }).call("bash", {
      command: "head -c 50000 /dev/zero | tr '\\0' x",
    });
    expect(result.content.startsWith("x".repeat(1000))).toBe(true);
    expect(result.content).toContain("[output cut: 49000 more bytes dropped]");
  });

  it("kills the whole process group on timeout", async () => {
    const started = Date.now();
    const result = await bash({ timeoutMs: 300 }).call("bash", {
      command: "sleep 30 & sleep 30 & sleep 30; wait",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ isError: true, outcome: "error" });
    expect(result.content).toContain("[killed after 300 ms timeout]");
    expect(result.details?.timedOut).toBe(true);
    expect(liveGroupMembers(pidOf(result.details))).toEqual([]);
  });

  it("a command's own shorter timeout applies, a longer one is capped", async () => {
    const result = await bash({ timeoutMs: 300 }).call("bash", {
      command: "sleep 30",
      timeout_ms: 3_600_000,
    });
    expect(result.content).toContain("[killed after 300 ms timeout]");
  });

  it("kills the process group when the turn is aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await bash().call("bash", { command: "sleep 30 & sleep 30; wait" }, controller.signal);
    expect(result.content).toContain("[killed: the turn was aborted]");
    expect(liveGroupMembers(pidOf(result.details))).toEqual([]);
  });

  it("does not leave background processes running after the command returns", async () => {
    const started = Date.now();
    const result = await bash().call("bash", { command: "sleep 30 & echo started" });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ isError: false, content: "started\n" });
    expect(liveGroupMembers(pidOf(result.details))).toEqual([]);
  });
});
