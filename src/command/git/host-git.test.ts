import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError, hostGit } from "./host-git.js";

let dir: string;
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("hostGit", () => {
  it("runs no hook and no fsmonitor a repository names, and commits as IronClaw", async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-git-"));
    await hostGit(dir, ["init", "-q"]);
    const marker = join(dir, "hook-ran");
    const hook = join(dir, ".git", "hooks", "pre-commit");
    await writeFile(hook, `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(hook, 0o755);
    const monitor = join(dir, "monitor.sh");
    await writeFile(monitor, `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(monitor, 0o755);
    await hostGit(dir, ["config", "core.fsmonitor", monitor]);
    await writeFile(join(dir, "a.txt"), "a\n");
    await hostGit(dir, ["add", "a.txt"]);
    await hostGit(dir, ["status", "--porcelain"]);
    await hostGit(dir, ["commit", "-q", "-m", "first"]);
    expect(existsSync(marker)).toBe(false);
    // The control: plain git in the same repository runs what it names.
    spawnSync(
      "git",
      ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "plain"],
      {
        cwd: dir,
      },
    );
    expect(existsSync(marker)).toBe(true);
    const log = await hostGit(dir, ["log", "--format=%an <%ae>|%s"]);
    expect(log.stdout.trim().split("\n").at(-1)).toBe("IronClaw <ironclaw@localhost>|first");
    expect((await hostGit(dir, ["branch", "--show-current"])).stdout.trim()).toBe("main");
  });

  it("reports a failing command with its arguments and git's words, or returns it when asked", async () => {
    dir = await mkdtemp(join(tmpdir(), "ironclaw-git-"));
    await hostGit(dir, ["init", "-q"]);
    const error = await hostGit(dir, ["rev-parse", "--verify", "nope"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/git rev-parse --verify nope failed \(exit 128\)/);
    const answer = await hostGit(dir, ["rev-parse", "--verify", "nope"], { allowFailure: true });
    expect(answer.code).toBe(128);
  });
});
