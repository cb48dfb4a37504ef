import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInProcessGroup } from "../../src/agent/index.js";
import { toolSandboxFromEnv } from "../../src/agent/tools/tool-sandbox.js";

// The bash tool's process handling, with and without the nested sandbox a cell asks for: what a tool call
// leaves behind, what it may write, and whether it can reach the process that runs it.
const bwrap =
  spawnSync("bwrap", ["--unshare-user", "--unshare-pid", "--dev-bind", "/", "/", "true"]).status === 0;
let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-tool-sandbox-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (command: string, sandbox: { kind: "bwrap"; readOnly: string[] } | null) =>
  runInProcessGroup(command, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 20_000,
    maxOutputBytes: 64 * 1024,
    signal: new AbortController().signal,
    sandbox,
  });

/** The pids of the daemon script's shells (their command line is `/bin/sh <script>`), anywhere on the host. */
async function daemonPids(script: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.startsWith(`/bin/sh\0${script}`)) pids.push(Number(name));
  }
  return pids;
}

/** A script that sleeps without exec, so its command line keeps naming it while it runs. */
async function daemonScript(): Promise<string> {
  const script = join(dir, `daemon-${process.pid}-${Date.now()}`);
  await writeFile(script, "#!/bin/sh\nsleep 300\n", { mode: 0o755 });
  return script;
}

/** Starts the script twice, detached from the call (setsid, nohup), and counts both from inside the call. */
const daemons = (script: string) =>
  `(setsid ${script} &) ; nohup ${script} >/dev/null 2>&1 & sleep 0.3; n=0; ` +
  `for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' 2>/dev/null < $p/cmdline)" in "/bin/sh ${script}"*) n=$((n+1));; esac; done; echo alive=$n`;

describe("tool processes", () => {
  it("kills the daemons a command started with setsid and nohup, outside any sandbox", async () => {
    const script = await daemonScript();
    const result = await run(daemons(script), null);
    // The control: while the call ran, both daemons were there to be seen.
    expect(result.output).toBe("alive=2\n");
    expect(result.strays).toBeGreaterThanOrEqual(2);
    expect(await daemonPids(script)).toEqual([]);
  });
});

describe.skipIf(!bwrap)("the tool sandbox", () => {
  const sandbox = () => ({ kind: "bwrap" as const, readOnly: [join(dir, "config")] });

  it("takes every process of the call with it when the command ends, setsid daemons included", async () => {
    const script = await daemonScript();
    const result = await run(daemons(script), sandbox());
    expect(result.output).toBe("alive=2\n");
    // Nothing was left to find by marker: the pid namespace took them.
    expect(result.strays).toBe(0);
    expect(await daemonPids(script)).toEqual([]);
  });

  it("keeps the read-only directories unwritable and unmovable, creating them first if missing", async () => {
    const result = await run(
      "(echo grant > config/irowclaw.toml) 2>/dev/null || echo write-refused; mv config c2 2>/dev/null || echo move-refused; echo ok > notes.md && echo notes-written",
      sandbox(),
    );
    expect(result.output).toBe("write-refused\nmove-refused\nnotes-written\n");
    expect(existsSync(join(dir, "config", "irowclaw.toml"))).toBe(false);
  });

  it("cannot reach the process that runs it: no fds, no environment", async () => {
    const parent = process.pid;
    const sibling = await daemonScript();
    // The sibling is found through /proc, which numbers pids as the host does, not as the sandbox does.
    const siblingPid = `$(for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' 2>/dev/null < $p/cmdline)" in "/bin/sh ${sibling}"*) echo \${p#/proc/};; esac; done)`;
    const result = await run(
      `readlink /proc/${parent}/fd/0 >/dev/null 2>&1 && echo FDS; head -c1 /proc/${parent}/environ >/dev/null 2>&1 && echo ENV; ` +
        `${sibling} & sleep 0.3; S=${siblingPid}; readlink /proc/$S/fd/0 >/dev/null 2>&1 && echo control-fds`,
      sandbox(),
    );
    // The control: a process of its own is reachable the same way, so the probe works.
    expect(result.output).toBe("control-fds\n");
  });

  it("refuses to run when a read-only directory is a link, and says so", async () => {
    await mkdir(join(dir, "elsewhere"));
    await symlink(join(dir, "elsewhere"), join(dir, "config"));
    const result = await run("echo ran", sandbox());
    expect(result.output).toMatch(/^the tool sandbox is not usable: .*config must be a real directory/);
    expect(result.exitCode).toBeNull();
  });

  it("reads its settings from the environment and names a wrong one", () => {
    expect(toolSandboxFromEnv({})).toBeUndefined();
    expect(
      toolSandboxFromEnv({
        IRONCLAW_TOOL_SANDBOX: "bwrap",
        IRONCLAW_TOOL_READONLY: "/mnt/brain/config:/mnt/brain/db",
      }),
    ).toEqual({ kind: "bwrap", readOnly: ["/mnt/brain/config", "/mnt/brain/db"] });
    expect(() => toolSandboxFromEnv({ IRONCLAW_TOOL_SANDBOX: "docker" })).toThrow(
      "IRONCLAW_TOOL_SANDBOX=docker is not known: use bwrap or leave it unset",
    );
    expect(() =>
      toolSandboxFromEnv({ IRONCLAW_TOOL_SANDBOX: "bwrap", IRONCLAW_TOOL_READONLY: "config" }),
    ).toThrow("IRONCLAW_TOOL_READONLY: config is not an absolute path");
  });
});
