import { existsSync } from "node:fs";
import { chmod, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, openVaultFixture, orderFile, type VaultFixture } from "../../../test/command/vault-fixture.js";

let fx: VaultFixture;
let worktree: string;
let marker: string;

beforeEach(async () => {
  fx = await openVaultFixture();
  await fx.addOrder("o1");
  ({ worktree_path: worktree } = await fx.vault.createWorktree({
    theaterId: "demo",
    runId: "r1",
    orderId: "o1",
  }));
  marker = join(fx.dir, "hostile-code-ran");
});
afterEach(async () => {
  await fx.close();
});

/** A repository a worker could plant, whose pre-commit hook and fsmonitor leave the marker when git runs them. */
async function plantHostileRepo(dir: string): Promise<string> {
  git(fx.dir, "init", "-q", dir);
  const script = `#!/bin/sh\ntouch ${marker}\n`;
  await writeFile(join(dir, ".git", "hooks", "pre-commit"), script);
  await chmod(join(dir, ".git", "hooks", "pre-commit"), 0o755);
  await writeFile(join(dir, "monitor.sh"), script);
  await chmod(join(dir, "monitor.sh"), 0o755);
  git(dir, "config", "core.fsmonitor", join(dir, "monitor.sh"));
  return join(dir, ".git");
}

/** The control: plain git in the worktree runs what the planted repository names. */
function plainCommitRunsIt(): boolean {
  git(worktree, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "plain");
  return existsSync(marker);
}

describe("a worktree a worker wrote is hostile to the host's git", () => {
  it("refuses a .git replaced by a symbolic link to a planted repository, and runs none of its code", async () => {
    const planted = await plantHostileRepo(join(fx.dir, "planted"));
    await rm(join(worktree, ".git"));
    await symlink(planted, join(worktree, ".git"));
    await writeFile(join(worktree, "work.txt"), "work\n");
    await expect(fx.vault.commitAll("o1", "work")).rejects.toThrow("its .git is a symbolic link");
    await expect(fx.vault.remove("o1")).rejects.toThrow("its .git is a symbolic link");
    await expect(fx.vault.archive("o1")).rejects.toThrow("its .git is a symbolic link");
    expect(existsSync(marker)).toBe(false);
    expect(plainCommitRunsIt()).toBe(true);
  });

  it("refuses a .git folder in place of git's file", async () => {
    await rm(join(worktree, ".git"));
    await plantHostileRepo(worktree);
    await expect(fx.vault.commitAll("o1", "work")).rejects.toThrow("its .git is a folder");
    expect(existsSync(marker)).toBe(false);
    expect(plainCommitRunsIt()).toBe(true);
  });

  it("refuses a .git file that points at another repository", async () => {
    const planted = await plantHostileRepo(join(fx.dir, "planted"));
    await writeFile(join(worktree, ".git"), `gitdir: ${planted}\n`);
    await expect(fx.vault.commitAll("o1", "work")).rejects.toThrow("its .git points elsewhere");
    expect(existsSync(marker)).toBe(false);
    expect(plainCommitRunsIt()).toBe(true);
  });

  it("refuses a nested .git below the worktree's root", async () => {
    await plantHostileRepo(join(worktree, "sub"));
    await expect(fx.vault.commitAll("o1", "work")).rejects.toThrow("nested .git at sub/.git");
    await expect(fx.vault.remove("o1")).rejects.toThrow("nested .git at sub/.git");
    expect(existsSync(marker)).toBe(false);
  });

  it("commits a symbolic link as data and never writes through one", async () => {
    const outside = join(fx.dir, "outside.txt");
    await writeFile(outside, "host file\n");
    await symlink(outside, join(worktree, "order.json"));
    await fx.vault.commitAll("o1", "a link");
    expect(git(worktree, "cat-file", "-p", "HEAD:order.json").out).toBe(outside);
    await expect(fx.vault.prepare("o1", orderFile("o1"))).rejects.toThrow("is a symbolic link");
    expect(await readFile(outside, "utf8")).toBe("host file\n");
  });
});
